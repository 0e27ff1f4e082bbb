#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosd's groups never cost rtkit its grants. With CONFIG_RT_GROUP_SCHED a
# thread in a group without real-time budget cannot be made real-time
# (EPERM, to root too): on cgroup v2 every group is such a group, on v1 a
# group whose parent's budget others hold. The test asks the kernel itself
# (a sleep in a group of its own, chrt -f) and expects qosd to agree:
#  1. where a group can hold real-time threads (v1, budget free), qosd's
#     groups are used and a background thread in one can be made real-time;
#  2. where it cannot (v1 with another group holding the root's budget, or
#     v2 with real-time group scheduling), qosd says so, leaves every thread
#     where it is with its class applied per thread, and chrt (as rtkit
#     does) makes a background thread real-time.
source "$(dirname "$0")/lib.sh"
require_root
require_groups
start_dbus
qosd_root_init

P=$QOS_CGROUP_PREFIX
APP=$(test_program qos-rt-app)
write_rule rt-app "$APP" background
in_cgroup() { [ "$(cgroup_of "$1")" = "$2" ]; }
policy_of() { stat_field "$1" 41; }

# Does the kernel refuse real-time to a thread in a new group here, given
# the budget qosd's largest group asks for where there are budgets (v1)?
group_refuses_realtime() {
        local g=$CPU_CGROUP/qos-test-rtprobe-$$ s refused=0
        mkdir "$g"
        [ "$CGROUP_THREADS" = tasks ] || echo threaded >"$g/cgroup.type"
        [ ! -f "$g/cpu.rt_runtime_us" ] || echo 500000 >"$g/cpu.rt_runtime_us" 2>/dev/null || true
        sleep 30 &
        s=$!
        echo "$s" >"$g/$CGROUP_THREADS"
        chrt -f -p 1 "$s" 2>/dev/null && refused=1
        kill "$s"
        wait "$s" 2>/dev/null || true
        remove_cgroup "$g"
        return $refused
}

# What the root's children may still take: its budget less theirs (v1).
budget_left() {
        local total used=0 g v
        total=$(cat "$CPU_CGROUP/cpu.rt_runtime_us")
        for g in "$CPU_CGROUP"/*/; do
                v=$(cat "$g/cpu.rt_runtime_us" 2>/dev/null) || continue
                used=$((used + v))
        done
        echo $((total - used))
}

without_budget() {
        THREADS_BIN=$APP start_threads worker
        t=$(tid_of worker)
        start_qosd
        wait_for sh -c "[ \"\$(awk '{ print \$41 }' /proc/$t/stat 2>/dev/null)\" = 5 ]" ||
                fail "background not applied per thread: policy $(policy_of "$t")"
        assert_eq "$(stat_field "$t" 19)" 19 "nice 19"
        assert_eq "$(cgroup_of "$t")" / "the thread stays in the root"
        [ -z "$(ls -d "$CPU_CGROUP/$P".* 2>/dev/null)" ] || fail "qosd left a group: $(ls -d "$CPU_CGROUP/$P".*)"
        assert_contains "$(cat "$QOSD_LOG")" "no real-time budget here" "the log says why groups are not used"
        assert_contains "$("$QOSCTL" classes)" "no real-time budget here" "qosctl classes says why"
        chrt -f -p 1 "$t" || fail "rtkit's grant would fail: the thread cannot be made real-time"
        assert_eq "$(policy_of "$t")" 1 "SCHED_FIFO"
        assert_contains "$("$QOSCTL" explain "$t")" "real-time" "qosd leaves the real-time thread alone"
        ok "$1: no groups used, the class per thread, real-time still granted"
}

if group_refuses_realtime; then
        # v2 with real-time group scheduling: no group has a budget.
        without_budget "groups without real-time budget (cgroup v2)"
        exit 0
fi

# 1. The groups work: a background thread in its group can still become
# real-time (qosd gave the group a budget, or the kernel asks for none).
THREADS_BIN=$APP start_threads worker
t=$(tid_of worker)
start_qosd
wait_for in_cgroup "$t" "/$P.background" || fail "not moved into the background group: in '$(cgroup_of "$t")'"
chrt -f -p 1 "$t" || fail "a thread in qosd's background group cannot be made real-time"
assert_eq "$(policy_of "$t")" 1 "SCHED_FIFO"
stop_qosd
ok "threads in qosd's groups can be made real-time"
kill "$THREADS_PID" 2>/dev/null
wait "$THREADS_PID" 2>/dev/null || true
# qosd left the real-time thread, and so its group, alone.
remove_cgroup "$CPU_CGROUP/$P.background"

# 2. v1: another group holds the budget, so qosd's groups would get none.
[ -f "$CPU_CGROUP/cpu.rt_runtime_us" ] ||
        skip "no real-time group scheduling here (no cpu.rt_runtime_us): groups cost rtkit nothing"
hog=$CPU_CGROUP/qos-test-rthog-$$
mkdir "$hog"
on_exit "remove_cgroup '$hog'"
left=$(budget_left)
[ "$left" -gt 100000 ] || skip "the root's real-time budget is taken already ($left µs left)"
# As much as the kernel gives it, short of what qosd's first group asks
# (half of the period). Groups removed a moment ago still hold theirs.
taken=
for ((i = 0; i < 50 && ${#taken} == 0; i++)); do
        echo $((left - 1000)) >"$hog/cpu.rt_runtime_us" 2>/dev/null && taken=1 || sleep 0.05
done
[ -n "$taken" ] || fail "cannot give the hog group $((left - 1000)) of the $left µs left: $(grep . "$CPU_CGROUP"/*/cpu.rt_runtime_us)"
group_refuses_realtime || fail "a group without budget took a real-time thread"
without_budget "another group holds the real-time budget (v1)"
