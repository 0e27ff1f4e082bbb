#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scheduler profiles against a directory that stands in for debugfs and
# sysfs (the real ones are EPERM under lockdown here, and there is no
# cpufreq): qosctl profile writes each knob, reports what it could not,
# `default` and qosd's exit put back exactly what was there.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

sched="$QOSD_ROOT/sys/kernel/debug/sched"
mkdir -p "$sched"
echo 1500000 >"$sched/base_slice_ns"
echo "GENTLE_FAIR_SLEEPERS NO_HRTICK HRTICK_DL WAKEUP_PREEMPTION" >"$sched/features"
# Two cpufreq policies; the second lacks schedutil.
for p in 0 1; do
        mkdir -p "$QOSD_ROOT/sys/devices/system/cpu/cpufreq/policy$p"
        echo powersave >"$QOSD_ROOT/sys/devices/system/cpu/cpufreq/policy$p/scaling_governor"
done
echo "performance powersave schedutil" >"$QOSD_ROOT/sys/devices/system/cpu/cpufreq/policy0/scaling_available_governors"
echo "performance powersave" >"$QOSD_ROOT/sys/devices/system/cpu/cpufreq/policy1/scaling_available_governors"
gov() { cat "$QOSD_ROOT/sys/devices/system/cpu/cpufreq/policy$1/scaling_governor"; }

start_qosd
assert_contains "$("$QOSCTL" profile)" "profile: default" "initial profile"

out=$("$QOSCTL" profile interactive)
assert_eq "$(cat "$sched/base_slice_ns")" 750000 "interactive: base slice"
assert_eq "$(cat "$sched/features")" HRTICK "interactive: the feature written"
assert_eq "$(gov 0)" schedutil "interactive: governor where available"
assert_eq "$(gov 1)" powersave "interactive: governor left where unavailable"
assert_contains "$out" "schedutil not available" "report names the missing governor"
assert_eq "$(qosd_status Profile)" interactive "status shows the profile"
ok "interactive: base slice, HRTICK, governor; what cannot be set is reported"

"$QOSCTL" profile throughput >/dev/null
assert_eq "$(cat "$sched/base_slice_ns")" 3000000 "throughput: base slice"
assert_eq "$(cat "$sched/features")" NO_HRTICK "throughput: the feature written"
assert_eq "$(gov 1)" performance "throughput: governor"
"$QOSCTL" profile default >/dev/null
assert_eq "$(cat "$sched/base_slice_ns")" 1500000 "default: base slice back"
assert_eq "$(gov 0)" powersave "default: governor back"
assert_eq "$(gov 1)" powersave "default: governor back (second policy)"
ok "default puts back the values found first"

expect_exit 2 "$QOSCTL" profile warp
assert_contains "$OUT" "Unknown profile" "unknown profile"
"$QOSCTL" profile qos >/dev/null
assert_eq "$(cat "$sched/base_slice_ns")" 1500000 "qos keeps the kernel's base slice"
stop_qosd TERM
assert_eq "$(gov 0)" powersave "exit restores the governor"
ok "qos profile; unknown names refused; exit restores"

# Profile= in qosd.conf, and a machine without the files: said, not fatal.
rm -rf "$QOSD_ROOT/sys"
printf '[Daemon]\nUserRules=no\nProfile=qos\n' >"$QOSD_ROOT/etc/qos/qosd.conf"
start_qosd
grep -q "base_slice_ns: unavailable" "$QOSD_LOG" || fail "missing debugfs not reported"
grep -q "no cpufreq" "$QOSD_LOG" || fail "missing cpufreq not reported"
stop_qosd TERM
ok "missing debugfs and cpufreq are reported and qosd carries on"
