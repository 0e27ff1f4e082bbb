#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a test run killed by a timeout leaves behind: empty cpu groups
# qos-test-PID.* holding real-time budget, which the next test-groups and
# test-daemon-coexist need. lib.sh removes the groups whose PID is gone
# before a test starts (never those of a test still running), and a budget
# held by anything else makes those tests skip, naming the holders, instead
# of failing on a '0 0' budget.
source "$(dirname "$0")/lib.sh"
require_root
require_groups
if [ ! -f "$CPU_CGROUP/cpu.rt_runtime_us" ]; then
        echo "SKIP: $TEST_NAME: no real-time budgets in $CPU_CGROUP (no CONFIG_RT_GROUP_SCHED)"
        exit 77
fi
here=$(dirname "$0")
# A budget this test sets up is granted in one step, or the kernel refuses
# it (someone else holds it) and the test skips.
give_budget() { # dir us
        WAIT_TIMEOUT=5 wait_for sh -c "echo $2 >'$1/cpu.rt_runtime_us'" && return 0
        echo "SKIP: $TEST_NAME: the kernel refused $2 us of real-time budget to $1 (held elsewhere)"
        exit 77
}

# A leftover of a killed run: a PID that is gone (a process started and reaped).
sleep 0 &
dead=$!
wait "$dead"
stale=$CPU_CGROUP/qos-test-$dead.user-interactive
mkdir "$stale"
on_exit "rmdir '$stale'"
give_budget "$stale" 500000
# A group of a test that still runs (its PID alive): not ours to remove.
sleep 600 &
alive=$!
on_exit "kill $alive"
live=$CPU_CGROUP/qos-test-$alive.background
mkdir "$live"
on_exit "rmdir '$live'"
give_budget "$live" 10000

rc=0
"$here/test-groups.sh" >"$TEST_TMP/groups.out" 2>&1 || rc=$?
if [ "$rc" = 77 ]; then
        # Its reason names who holds the budget it needs beside ours.
        echo "SKIP: $TEST_NAME: test-groups skipped: $(grep SKIP "$TEST_TMP/groups.out")"
        exit 77
fi
[ "$rc" = 0 ] || fail "test-groups after a killed run's leftover exited $rc: $(tail -n 5 "$TEST_TMP/groups.out")"
[ ! -d "$stale" ] || fail "the leftover group $stale is still there"
[ -d "$live" ] || fail "the group of a running test ($live) was removed"
ok "a killed run's group is removed before the next test, a running test's group is kept"

# Budget held by something that is not a test's leftover: skip, naming it.
# It takes all that is free (tests running beside this one may hold some).
holder=$CPU_CGROUP/qos-holder-$$
free=$(cat "$CPU_CGROUP/cpu.rt_runtime_us")
for g in "$CPU_CGROUP"/*/; do
        free=$((free - $(cat "$g/cpu.rt_runtime_us")))
done
mkdir "$holder"
on_exit "rmdir '$holder'"
give_budget "$holder" "$free"
for t in test-groups test-daemon-coexist; do
        rc=0
        out=$("$here/$t.sh" 2>&1) || rc=$?
        assert_eq "$rc" 77 "$t with the budget held elsewhere (output: $out)"
        assert_contains "$out" "SKIP: $t: needs" "$t says why it skips"
        assert_contains "$out" "$holder ($free us)" "$t names the group holding the budget"
done
ok "without a free budget the tests skip and name who holds it"
