#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Overrides of an unprivileged process, lent through qosd: a background
# thread raised by its utility main thread (the lent class is capped at
# the lender's), back to background exactly when the override ends; the
# same through a contended qos_mutex_t whose waiter timed out (the loan
# lasts until the owner unlocks); an owner that exits and a client that
# disconnects leave no override in qosd; threads of another process are
# refused; a loan follows its lender: one lent from the foreground (to
# another thread and to the lender itself) goes when the focus moves on,
# and a thread whose settings are no class lends nothing; a qosd killed
# with loans active leaves no thread raised once it is back. Without qosd the
# same calls fail and change nothing. In the
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

# --- a loan follows its lender's class ----------------------------------
# The client's process in front, its main thread user-interactive, lent
# to the owner and to itself; pid: the process.
front_lent() {
        client_start front
        pid=$(awk '/^Tgid:/ {print $2}' "/proc/$OWNER/status")
        "$QOSCTL" foreground "$pid"
        step "self 0 user-interactive"
        step "lent 0 user-interactive"
        step "lent-self 0 user-interactive"
}
UI=$(class_view user-interactive)
UT=$(class_view utility)
front_lent
wait_active 2 "the owner's loan and the main thread's own"
"$QOSCTL" foreground --clear
assert_eq "$(kernel_view "$pid")" "$UT" "the lender, out of front, with a loan to itself: utility"
assert_eq "$(kernel_view "$OWNER")" "$UT" "the thread it lent to: utility"
"$QOSCTL" reload >/dev/null
assert_eq "$(kernel_view "$OWNER")" "$UT" "and after a reload"
"$QOSCTL" foreground "$pid"
assert_eq "$(kernel_view "$pid")" "$UI" "back in front: the lender"
assert_eq "$(kernel_view "$OWNER")" "$UI" "and the loan"
"$QOSCTL" foreground --clear
step "end-self 0"
assert_eq "$(kernel_view "$pid")" "$UT" "the loan to itself ended: the lender held"
step "end 0 background"
assert_eq "$(kernel_view "$OWNER")" "$bg_view" "the end restores background"
wait_active 0 "after both ended"
client_done
ok "loans lent from the foreground are capped again when the focus moves; a loan to oneself keeps nothing"

client_start custom
step "begin 0 background"
assert_eq "$(kernel_view "$OWNER")" "$bg_view" "no class of its own: nothing lent"
step "end 0 background"
client_done
ok "a thread whose settings are no class lends nothing above background"

# --- a qosd killed with loans active ------------------------------------
front_lent
wait_active 2 "before qosd is killed"
stop_qosd KILL
[ -s "$QOSD_ROOT/run/qos/qosd.loans" ] || fail "the loans are not in qosd.loans"
assert_eq "$(kernel_view "$OWNER")" "$UI" "qosd killed: the loan is still on the thread"
start_qosd
assert_eq "$(kernel_view "$OWNER")" "$bg_view" "the next qosd puts the thread lent to back at its base"
assert_eq "$(kernel_view "$pid")" "$UT" "and the lender back at its original"
assert_eq "$(active)" 0 "no loan survives its qosd"
stop_qosd TERM
[ ! -e "$QOSD_ROOT/run/qos/qosd.loans" ] || fail "qosd.loans left after a clean exit"
assert_eq "$(kernel_view "$OWNER")" "$bg_view" "and after it exits"
kill "$CPID"
wait "$CPID" 2>/dev/null || true
ok "a qosd killed with loans active: its successor puts the threads back"
