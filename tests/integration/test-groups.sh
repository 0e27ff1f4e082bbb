#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The group layer on the real cgroupfs: each thread of a process lands in
# its class's cpu group and comes back to exactly where it was; qosd's
# groups carry the class table's weight and idle flag and disappear when
# empty; a thread in another manager's cgroup is left there with the reason
# said; stale groups from a crashed run are emptied by the recovery
# primitive. Groups are named after this test (QOS_CGROUP_PREFIX), and
# lib.sh removes whatever is left, also on failure.
. "$(dirname "$0")/lib.sh"
require_root
require_groups
# The user-interactive and background groups' real-time budgets.
require_rt_budget user-interactive background
: "${QOS_TEST_GROUPS:?QOS_TEST_GROUPS must point at qos-test-groups}"

P=$QOS_CGROUP_PREFIX
group_col() { "$QOSCTL" get -p "$1" | awk 'NR == 2 { print $NF }'; }

start_threads bgw uiw
pid=$THREADS_PID bg=$(tid_of bgw) ui=$(tid_of uiw)
before=$(cgroup_of "$pid")
assert_eq "$before" / "the helper starts in the root cpu cgroup"

"$QOSCTL" set -c background -p "$bg" || fail "set background exited $?"
"$QOSCTL" set -c user-interactive -p "$ui" || fail "set user-interactive exited $?"
assert_eq "$(cgroup_of "$bg")" "/$P.background" "background thread in the background group"
assert_eq "$(cgroup_of "$ui")" "/$P.user-interactive" "user-interactive thread in its group"
assert_eq "$(cgroup_of "$pid")" / "the main thread, left at utility, stays where it was"
assert_eq "$(stat_field "$bg" 41) $(stat_field "$ui" 19)" "5 -20" "per-thread knobs applied too"
assert_eq "$(group_col "$bg")" "$P.background" "qosctl get shows the group"
ok "each thread in its class's group, the rest of the process untouched"

# The kernel's view of the groups: what the class table says.
bgdir=$CPU_CGROUP/$P.background uidir=$CPU_CGROUP/$P.user-interactive
if [ -f "$bgdir/cpu.idle" ]; then
        assert_eq "$(cat "$bgdir/cpu.idle")" 1 "background group is idle"
fi
if [ -f "$uidir/cpu.shares" ]; then
        assert_eq "$(cat "$uidir/cpu.shares")" 10240 "user-interactive weight 1000 as v1 shares"
else
        assert_eq "$(cat "$uidir/cpu.weight")" 1000 "user-interactive weight"
fi
if [ -f "$uidir/cpu.rt_runtime_us" ]; then
        assert_eq "$(cat "$uidir/cpu.rt_runtime_us") $(cat "$bgdir/cpu.rt_runtime_us")" "500000 100000" \
                "real-time budgets"
        # Without a budget the kernel would refuse real-time here (rtkit, chrt).
        chrt -f -p 1 "$ui" || fail "a user-interactive thread cannot become real-time in its group"
        chrt -r -p 1 "$bg" || fail "a background thread cannot become real-time in its group"
        "$QOSCTL" set -c user-interactive -p "$ui" 2>/dev/null && fail "qosctl changed a real-time thread"
        chrt -o -p 0 "$ui"
        chrt -o -p 0 "$bg"
        "$QOSCTL" set -c user-interactive -p "$ui"
        "$QOSCTL" set -c background -p "$bg"
fi
ok "groups carry the class table's share"

# Back to utility: back where they came from, and the groups go.
"$QOSCTL" set -c utility -p "$bg" -v >"$TEST_TMP/back.out" || fail "set utility exited $?"
assert_contains "$(cat "$TEST_TMP/back.out")" "group $P.background->autogroup" "-v names the group change"
"$QOSCTL" set -c utility -p "$ui" || fail "set utility exited $?"
assert_eq "$(cgroup_of "$bg") $(cgroup_of "$ui")" "$before $before" "both threads back where they came from"
[ ! -d "$bgdir" ] || fail "empty background group not removed"
[ ! -d "$uidir" ] || fail "empty user-interactive group not removed"
ok "utility brings both back and removes the empty groups"

# A group still in use stays: rmdir is the kernel's atomic emptiness test.
"$QOSCTL" set -c background -p "$pid" -a
"$QOSCTL" set -c utility -p "$bg"
[ -d "$bgdir" ] || fail "background group removed while two threads are still in it"
"$QOSCTL" set -c utility -p "$pid" -a
[ ! -d "$bgdir" ] || fail "background group left after its last thread"
ok "a group in use is kept, the last thread out removes it"

# A command run in a class takes its group with it: children inherit it.
out=$("$QOSCTL" run -c background sh -c 'sh -c "cat /proc/\$\$/cgroup"')
assert_contains "$out" ":/$P.background" "run: the command's child is in the background group"
assert_eq "$("$QOS_TEST_GROUPS" remove-empty)" "left 0" "the group the command left is removed"
ok "run puts the command and its children in the group"

# A cgroup another manager owns: the thread stays, per-thread knobs apply,
# and the reason is said.
foreign=$CPU_CGROUP/qos-test-foreign-$$
mkdir "$foreign"
on_exit "remove_cgroup '$foreign'"
start_threads fw
ftid=$(tid_of fw)
echo "$THREADS_PID" >"$foreign/cgroup.procs"
assert_eq "$(cgroup_of "$ftid")" "/qos-test-foreign-$$" "the process sits in the foreign cgroup"
expect_exit 0 "$QOSCTL" set -c background -p "$ftid"
assert_contains "$OUT" "another manager owns" "the reason is said"
assert_eq "$(cgroup_of "$ftid")" "/qos-test-foreign-$$" "the thread was not moved"
assert_eq "$(stat_field "$ftid" 41)" 5 "per-thread background applied in the foreign cgroup"
assert_eq "$(group_col "$ftid")" "foreign:/qos-test-foreign-$$" "get shows the foreign cgroup"
[ ! -d "$bgdir" ] || fail "a group was created for a thread that cannot move"
expect_exit 0 "$QOSCTL" set -c utility -p "$ftid"
# qosd is not running here: the one line of a done set, and no warning.
assert_eq "$OUT" "thread $ftid (fw) of pid $THREADS_PID: utility (set directly: qosd is not running)" \
        "utility on a foreign thread: nothing to move, nothing to say"
ok "a thread in a foreign cgroup is left there, and the result says why"

# After a crash: stale groups made by hand, with threads inside. recover
# keeps what the caller keeps and moves the rest back, then removes what
# is empty.
start_threads s1 s2
s1=$(tid_of s1) s2=$(tid_of s2)
mkdir "$bgdir" "$CPU_CGROUP/$P.user-initiated"
echo "$s1" >"$bgdir/$CGROUP_THREADS"
echo "$s2" >"$bgdir/$CGROUP_THREADS"
assert_eq "$("$QOS_TEST_GROUPS" recover "$s2")" "moved 1" "recover moves the one not kept"
assert_eq "$(cgroup_of "$s1") $(cgroup_of "$s2")" "/ /$P.background" "kept thread stays, the other is back"
[ ! -d "$CPU_CGROUP/$P.user-initiated" ] || fail "empty stale group not removed"
[ -d "$bgdir" ] || fail "group with a kept thread removed"
assert_eq "$("$QOS_TEST_GROUPS" recover)" "moved 1" "recover without a keeper"
assert_eq "$(cgroup_of "$s2")" / "last thread back"
[ ! -d "$bgdir" ] || fail "stale group left after recovery"
assert_eq "$("$QOS_TEST_GROUPS" recover)" "moved 0" "recover on a clean system does nothing"
ok "stale groups from a crashed run are cleaned up"
