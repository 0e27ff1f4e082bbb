#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Real unprivileged users: anyone may demote their own threads; raising a
# class is refused with exit code 4 and advice; another user's threads are
# off limits.
. "$(dirname "$0")/lib.sh"
require_root

alice=qos-t-alice
bob=qos-t-bob
make_user "$alice"
make_user "$bob"
cp "$QOSCTL" "$TEST_TMP/qosctl"
chmod 755 "$TEST_TMP/qosctl"
qosctl=$TEST_TMP/qosctl
as() { runuser -u "$1" -- "${@:2}"; }

# Demoting itself to background works.
out=$(as "$alice" "$qosctl" run -c background sh -c 'cat /proc/$$/stat') || fail "alice run -c background exited $?"
set -- ${out##*) }
assert_eq "${17} ${39}" "19 5" "alice's command runs at nice 19, SCHED_IDLE"
ok "unprivileged demotion to background"

# The group part needs root (or qosd, not running here): the thread stays
# in its session's group, the class still applies (exit 0) without a
# warning, and -v says what was left as it is.
if [ -n "$CPU_CGROUP" ]; then
        out=$(as "$alice" "$qosctl" run -c background sh -c 'cat /proc/$$/stat; cat /proc/$$/cgroup' \
                2>"$TEST_TMP/err") || fail "alice run -c background exited $? without group access"
        assert_eq "$(cat "$TEST_TMP/err")" "" "no warning for what a user cannot set"
        line=$(head -n1 <<<"$out")
        set -- ${line##*) }
        assert_eq "${17} ${39}" "19 5" "per-thread background applied without group access"
        [ ! -d "$CPU_CGROUP/$QOS_CGROUP_PREFIX.background" ] || fail "an unprivileged run created a group"
        out=$(as "$alice" "$qosctl" run -v -c background true) || fail "alice run -v exited $?"
        assert_contains "$out" "group left as it is: moving a thread between cpu cgroups needs root or qosd" \
                "-v says the group was left"
        ok "unprivileged: the group is left without a warning (-v says so), the class still applies"
fi

AS_USER=$alice start_threads ui
tid=$(tid_of ui)
out=$(as "$alice" "$qosctl" set -c background -p "$tid" 2>"$TEST_TMP/err") || fail "alice demoting her own thread exited $?"
assert_eq "$(stat_field "$tid" 41)" 5 "alice's thread is idle"
assert_eq "$(cat "$TEST_TMP/err")" "" "a demotion prints no warnings (another thread's timer slack, the group)"
assert_contains "$out" "background (set directly: qosd is not running)" "what was done, in one line"
ok "unprivileged demotion of an own thread"

# Coming back is a promotion: refused before anything changes (no knob
# half-applied), documented exit code and advice.
before=$(kernel_view "$tid")
expect_exit 4 as "$alice" "$qosctl" set -c utility -p "$tid"
assert_contains "$OUT" "needs privilege" "promotion refused with advice"
assert_contains "$OUT" "qosd" "the advice names the daemon"
assert_eq "$(wc -l <<<"$OUT")" 1 "in one line"
assert_eq "$(kernel_view "$tid")" "$before" "the refused promotion changed nothing"
expect_exit 4 as "$alice" "$qosctl" run -c user-interactive true
ok "unprivileged promotion refused with exit 4"

# Bob may not touch alice's threads, not even to demote them.
AS_USER=$alice start_threads other
tid=$(tid_of other)
expect_exit 4 as "$bob" "$qosctl" set -c background -p "$tid"
assert_contains "$OUT" "belongs to another user" "another user's thread"
assert_eq "$(stat_field "$tid" 41) $(stat_field "$tid" 19)" "0 0" "alice's thread untouched by bob"
ok "another user's thread refused"

# Down from user-interactive: the kernel keeps reset-on-fork for an
# unprivileged caller, which is no promotion and no failure.
AS_USER=$alice start_threads down
tid=$(tid_of down)
"$QOSCTL" set -c user-interactive -p "$tid"
as "$alice" "$qosctl" set -c background -p "$tid" || fail "alice demoting from user-interactive exited $?"
assert_eq "$(stat_field "$tid" 41) $(stat_field "$tid" 19)" "5 19" "demoted from user-interactive to background"
ok "demotion from a reset-on-fork class"

# What the kernel supports does not depend on who asks: an unprivileged
# caller already in background (SCHED_IDLE, which it may not leave to try
# a slice on itself) sees the same knob table as root.
table() { sed -n '/^KNOB/,$p'; }
want=$("$QOSCTL" classes | table)
got=$(as "$alice" "$qosctl" run -c background "$qosctl" classes | table)
assert_eq "$got" "$want" "knob table of an idle unprivileged caller"
ok "knob support probed the same without privilege"
