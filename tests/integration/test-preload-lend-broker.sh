#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Lending on plain pthread mutexes under the preload, for a program without
# CAP_SYS_NICE: through qosd (libqos.so's qos_override_begin_from, loaded
# at the first loan). An unmodified program run by an unprivileged user,
# whose threads the admin's rule names ui-* (user-interactive, given by
# qosd) and bg-* (background): a ui thread waiting on a mutex a bg thread
# holds raises the holder to user-interactive through qosd until the
# release; a second waiter's loan outlives the first's; a sleeping
# condition waiter lends to the signaller holding its mutex; every loan
# ends, qosd holds none afterwards, and a stress run keeps its counts.
# Without qosd the loan fails and glibc's results are unchanged.
source "$(dirname "$0")/lib.sh"
require_root
: "${QOS_PLAIN_MUTEX:?}" "${QOS_LIB:?}" "${QOS_PRELOAD:?}"
if [ -n "$(preload_runtime)" ]; then
        # libqos.so is dlopen()ed by the preload as the user: in the ASan
        # build it needs the runtime first, which runuser's environment
        # does not keep for a setuid-free exec either way; the plain build
        # covers this path, test-preload-lend the ASan one.
        echo "SKIP: $TEST_NAME: sanitizer build"
        exit 77
fi

user=qos-t-plend
make_user "$user"
copy_for_user "$QOS_LIB" "$QOS_PLAIN_MUTEX"
cp "$QOS_PRELOAD" "$TEST_TMP/lib/libqos-preload.so"
chmod a+r "$TEST_TMP/lib/libqos-preload.so"
qosd_root_init
# The test user is at no seat: without this qosd would hold its
# user-interactive thread at utility (docs/foreground.md), and it would
# lend utility.
printf '[Daemon]\nUserRules=no\nForegroundGate=no\n' >"$QOSD_ROOT/etc/qos/qosd.conf"
chmod -R a+rX "$QOSD_ROOT"
PLAIN=$TEST_TMP/bin/qos-plain-mutex
write_rule plain "$PLAIN" - "ui-*" user-interactive "bg-*" background
chmod a+r "$QOSD_ROOT/etc/qos/apps.d/plain.conf"
LOG=$TEST_TMP/logs/preload.log
mkdir -p "$TEST_TMP/logs"
chown "$user" "$TEST_TMP/logs"

as_user() { # command...
        runuser -u "$user" -- env LD_PRELOAD="$TEST_TMP/lib/libqos-preload.so" QOS_ROOT="$QOSD_ROOT" \
                QOS_PRELOAD_LIBQOS="$TEST_TMP/lib/libqos.so.0" QOS_PRELOAD_DEBUG="$LOG" \
                DBUS_SYSTEM_BUS_ADDRESS="${DBUS_SYSTEM_BUS_ADDRESS:-unix:path=$TEST_TMP/none}" "$@"
}
loans() { grep -c "lend tid=.*: lent" "$LOG" || true; }
ends() { grep -c "loan end " "$LOG" || true; }
t_ui=$(class_triple user-interactive)
t_bg=$(class_triple background)

# --- without qosd: the loan cannot be made, glibc's result is the same
rm -f "$LOG"
out=$(as_user "$PLAIN" lend normal unlock 300)
assert_eq "$(grep '^waiter' <<<"$out")" "waiter lock 0" "without qosd: the waiter got the mutex"
grep -q "lending: on, through qosd" "$LOG" || fail "lending is not on through qosd: $(head -n 5 "$LOG")"
assert_eq "$(loans)" 0 "without qosd: loans"
ok "without qosd: no loan, the waiter got the mutex"

start_dbus
start_qosd

# --- one loan through qosd, on each type lent on
for type in normal recursive errorcheck robust; do
        rm -f "$LOG"
        # Held 100 ms once lent: the lender records the loan when qosd
        # answers, and a release before that is ended by the lender
        # instead, a round trip later (docs/preload.md).
        out=$(as_user "$PLAIN" lend "$type" unlock 3000 100)
        assert_eq "$(grep '^waiter' <<<"$out")" "waiter lock 0" "$type: the waiter got it"
        assert_eq "$(grep '^base' <<<"$out")" "base $t_bg" "$type: the holder before"
        assert_eq "$(grep '^lent' <<<"$out")" "lent $t_ui" "$type: the holder while waited on"
        assert_eq "$(grep '^after' <<<"$out")" "after $t_bg" "$type: the holder after its unlock ($(grep -E 'lend|loan' "$LOG"))"
        assert_eq "$(loans)" 1 "$type: loans"
        assert_eq "$(ends)" 1 "$type: loans ended"
        grep -q "loan end .*: ended" "$LOG" || fail "$type: the end failed: $(grep 'loan end' "$LOG")"
done
grep -q "lending through qosd: .*libqos.so.0 loaded" "$LOG" || fail "libqos.so was not loaded: $(head "$LOG")"
wait_active 0 "qosd holds no override after the loans"
ok "an unprivileged user-interactive waiter raises its background holder through qosd, on every type lent on"

# --- a second waiter lends to the holder the first one's loan raised, and
# its loan holds the holder up after the first gives up. The second comes
# as soon as the holder's settings change, while the first's loan may not
# be answered yet: it must judge the holder by its own class, not the
# lent one. A few rounds, as the moment differs from round to round.
for round in 1 2 3 4 5 6; do
        rm -f "$LOG"
        out=$(as_user "$PLAIN" second)
        assert_eq "$(grep '^first' <<<"$out")" "first lock ETIMEDOUT" "second, round $round: the first gave up"
        assert_eq "$(grep '^still' <<<"$out")" "still $t_ui" "second, round $round: the holder once the first gave up ($(grep -E 'lend|loan' "$LOG"))"
        assert_eq "$(grep '^after' <<<"$out")" "after $t_bg" "second, round $round: the holder after its unlock"
        assert_eq "$(loans)" 2 "second, round $round: loans"
        assert_eq "$(ends)" 2 "second, round $round: loans ended"
        wait_active 0 "qosd holds no override after the second waiter"
done
ok "through qosd, a second waiter's loan outlives the first's"

# --- a condition variable's waiter, asleep, lends through the signaller:
# qosd is asked for the waiter's class (qos_override_begin_from), and
# lends no more than the waiter has.
rm -f "$LOG"
out=$(as_user "$PLAIN" signal)
assert_eq "$(grep '^lent' <<<"$out")" "lent $t_ui" "signal: the signaller, holding the waiter's mutex"
assert_eq "$(grep '^after' <<<"$out")" "after $t_bg" "signal: the signaller after its unlock"
assert_eq "$(grep -c "(waiting on a condition): lent" "$LOG")" 1 "signal: loans"
assert_eq "$(ends)" 1 "signal: loans ended"
wait_active 0 "qosd holds no override after the signal"
ok "through qosd, a sleeping condition waiter's class reaches the signaller holding its mutex"

# --- a stress run: counts kept, every loan ended, none left in qosd
rm -f "$LOG"
out=$(as_user "$PLAIN" stress 300)
assert_eq "$out" "stress total 1800 expected 1800" "stress through qosd"
assert_eq "$(ends)" "$(loans)" "stress: loans ended"
wait_active 0 "qosd holds no override after the stress run"
ok "stress through qosd: counts kept, $(loans) loans, all ended, none left in qosd"
