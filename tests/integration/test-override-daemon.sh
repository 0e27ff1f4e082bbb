#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Overrides of an unprivileged process, lent through qosd: a background
# thread raised by its utility main thread (the lent class is capped at
# the lender's), back to background exactly when the override ends; the
# same through a contended qos_mutex_t whose waiter timed out (the loan
# lasts until the owner unlocks); an owner that exits and a client that
# disconnects leave no override in qosd; threads of another process are
# refused. Without qosd the same calls fail and change nothing. In the
# kernel matrix too: owners are dropped on exit without thread pidfds.
# kernel-matrix: vm
. "$(dirname "$0")/lib.sh"
require_root
: "${QOS_OVERRIDE_CLIENT:?}" "${QOS_LIB:?}"

user=qos-t-override
make_user "$user"
copy_for_user "$QOS_LIB" "$QOS_OVERRIDE_CLIENT"

client_start() { # mode
        coproc CLIENT { runuser -u "$user" -- env LD_LIBRARY_PATH="$TEST_TMP/lib" \
                DBUS_SYSTEM_BUS_ADDRESS="${DBUS_SYSTEM_BUS_ADDRESS:-unix:path=$TEST_TMP/none}" \
                "$TEST_TMP/bin/qos-override-client" "$1" 2>>"$TEST_TMP/client.err"; }
        CPID=$CLIENT_PID
        on_exit "kill $CPID"
        next_line
        read -r _ OWNER _ <<<"$REPLY"
}
next_line() {
        read -r -t "$STARTUP_TIMEOUT" REPLY <&"${CLIENT[0]}" || fail "the client did not answer: $(cat "$TEST_TMP/client.err")"
}
# The last step's go-ahead: the client exits.
client_done() {
        echo >&"${CLIENT[1]}"
        wait "$CPID" 2>/dev/null || true
}
step() { # expected line
        echo >&"${CLIENT[1]}"
        next_line
        assert_eq "$REPLY" "$1" "client step"
}

# --- no qosd: the promotion cannot be made, nothing changes ----------
client_start override
bg_view=$(kernel_view "$OWNER")
echo >&"${CLIENT[1]}"
next_line
assert_contains "$REPLY" "begin -" "override without qosd fails"
assert_contains "$REPLY" "background" "and leaves the owner alone"
kill "$CPID"
wait "$CPID" 2>/dev/null || true
ok "without qosd: $REPLY"

start_dbus
qosd_root_init
start_qosd

# --- qos_override_begin/end through qosd -----------------------------
client_start override
assert_eq "$(kernel_view "$OWNER")" "$bg_view" "the owner starts at background"
step "begin 0 utility"
wait_active 1 "after begin"
step "end 0 background"
assert_eq "$(kernel_view "$OWNER")" "$bg_view" "the owner's settings after the end"
wait_active 0 "after end"
client_done
ok "a utility thread lends utility (not the user-interactive asked for); the end restores background"

# --- a contended qos_mutex_t ------------------------------------------
client_start mutex
step "timedlock -110 utility"
wait_active 1 "the timed-out waiter's loan lasts while the owner holds the lock"
step "unlocked background"
wait_active 0 "after the unlock"
wait "$CPID" 2>/dev/null || true
ok "qos_mutex_t: the loan goes through qosd and ends with the unlock"

# --- the owner exits with an override ----------------------------------
client_start exit
step "begin 0 utility"
step "joined 0"
wait_active 0 "after the owner exited"
step "end-after-exit -3"
client_done
ok "an owner that exits leaves no override behind (and ending it then says ESRCH)"

# --- the client goes away without ending -------------------------------
client_start override
step "begin 0 utility"
wait_active 1 "before the client is killed"
kill -9 "$(awk '/^Tgid:/ {print $2}' "/proc/$OWNER/status")"
wait "$CPID" 2>/dev/null || true
wait_active 0 "after the client was killed"
ok "a client that disconnects leaves no override behind"

# --- another process's threads are refused -----------------------------
# The bus policy lets anyone call BeginOverride (a thread that does not
# exist gets qosd's own answer), so an AccessDenied is qosd's check.
call_begin() { # waiter waiter_start owner owner_start
        runuser -u "$user" -- busctl --system call org.qosd.QoS1 /org/qosd/QoS1 \
                org.qosd.QoS1.Manager BeginOverride itits "$@" utility
}
expect_exit 1 call_begin 4194000 1 4194001 1
assert_contains "$OUT" "does not exist" "a thread that does not exist"
start_threads a
other=$(tid_of a)
expect_exit 1 call_begin "$THREADS_PID" "$(stat_field "$THREADS_PID" 22)" "$other" "$(stat_field "$other" 22)"
assert_contains "$OUT" "Access denied" "threads of another process"
wait_active 0 "after refused calls"
ok "BeginOverride on threads that are not the caller's is refused"
