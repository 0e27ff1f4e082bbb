#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosd's groups never cost rtkit its grants. With CONFIG_RT_GROUP_SCHED a
# thread in a group without real-time budget cannot be made real-time
# (EPERM, to root too): what cgroup v2 does to every group, and v1 to a
# group whose parent's budget others hold. Here (v1) another group takes
# nearly all of the root's budget before qosd starts: qosd must see that
# its groups would refuse real-time threads, say so, and leave every
# thread where it is, its class applied per thread; chrt (as rtkit does)
# then makes a background thread real-time. Without that group, the
# groups are used, and a thread in one can still be made real-time.
source "$(dirname "$0")/lib.sh"
require_root
require_groups
[ -f "$CPU_CGROUP/cpu.rt_runtime_us" ] ||
        skip "this kernel has no real-time group scheduling (no cpu.rt_runtime_us): nothing to lose"
start_dbus
qosd_root_init

P=$QOS_CGROUP_PREFIX
APP=$(test_program qos-rt-app)
write_rule rt-app "$APP" background
in_cgroup() { [ "$(cgroup_of "$1")" = "$2" ]; }
policy_of() { stat_field "$1" 41; }

# What the root's children may still take: its budget less theirs.
budget_left() {
        local total used=0 g v
        total=$(cat "$CPU_CGROUP/cpu.rt_runtime_us")
        for g in "$CPU_CGROUP"/*/; do
                v=$(cat "$g/cpu.rt_runtime_us" 2>/dev/null) || continue
                used=$((used + v))
        done
        echo $((total - used))
}

# 1. The groups work: a background thread in its group can still become
# real-time (qosd gave the group a budget).
THREADS_BIN=$APP start_threads worker
t=$(tid_of worker)
start_qosd
wait_for in_cgroup "$t" "/$P.background" || fail "not moved into the background group: in '$(cgroup_of "$t")'"
chrt -f -p 1 "$t" || fail "a thread in qosd's background group cannot be made real-time"
assert_eq "$(policy_of "$t")" 1 "SCHED_FIFO"
stop_qosd
ok "with budget: threads in qosd's groups can be made real-time"
kill "$THREADS_PID" 2>/dev/null
wait "$THREADS_PID" 2>/dev/null || true
# qosd left the real-time thread, and so its group, alone.
remove_cgroup "$CPU_CGROUP/$P.background"

# 2. Another group holds the budget: qosd's groups would get none.
hog=$CPU_CGROUP/qos-test-rthog-$$
mkdir "$hog"
on_exit "remove_cgroup '$hog'"
left=$(budget_left)
[ "$left" -gt 100000 ] || skip "the root's real-time budget is taken already ($left µs left)"
# As much as the kernel gives it, short of what qosd's first group asks
# (half of the period): the kernel keeps a little back from the sum.
taken=
for ((v = left - 1000; v > left - 400000; v -= 10000)); do
        echo "$v" >"$hog/cpu.rt_runtime_us" 2>/dev/null && { taken=$v; break; }
done
[ -n "$taken" ] || fail "cannot give the hog group most of the $left µs left: $(grep . "$CPU_CGROUP"/*/cpu.rt_runtime_us)"

THREADS_BIN=$APP start_threads worker
t=$(tid_of worker)
start_qosd
wait_for sh -c "[ \"\$(awk '{ print \$41 }' /proc/$t/stat 2>/dev/null)\" = 5 ]" ||
        fail "background not applied per thread: policy $(policy_of "$t")"
assert_eq "$(stat_field "$t" 19)" 19 "nice 19"
assert_eq "$(cgroup_of "$t")" / "the thread stays in the root"
[ -z "$(ls -d "$CPU_CGROUP/$P".* 2>/dev/null)" ] || fail "qosd left a group: $(ls -d "$CPU_CGROUP/$P".*)"
assert_contains "$(cat "$QOSD_LOG")" "no real-time budget here" "the log says why groups are not used"
chrt -f -p 1 "$t" || fail "rtkit's grant would fail: the thread cannot be made real-time"
assert_eq "$(policy_of "$t")" 1 "SCHED_FIFO"
assert_contains "$("$QOSCTL" explain "$t")" "real-time" "qosd leaves the real-time thread alone"
ok "without budget for its groups: none used, the class per thread, real-time still granted"
