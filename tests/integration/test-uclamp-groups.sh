#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Utilization clamps of qosd's class groups: with threads of each grouped
# class running, cpu.uclamp.min and cpu.uclamp.max of each group read back
# the class table's clamps as percentages ("max" for 1024). Skips where the
# kernel's cpu groups have no such files (CONFIG_UCLAMP_TASK_GROUP).
source "$(dirname "$0")/lib.sh"
require_root
require_groups
qosd_root_init

P=$QOS_CGROUP_PREFIX
APP=$(test_program qos-app-ugroups)
write_rule app-ugroups "$APP" - "ui*" user-interactive "ii*" user-initiated "bg*" background
THREADS_BIN=$APP start_threads ui-t ii-t bg-t
start_qosd --sys-root /

for c in user-interactive user-initiated background; do
        dir=$CPU_CGROUP/$P.$c
        wait_for test -d "$dir" || fail "no group $dir for $c"
        if [ ! -e "$dir/cpu.uclamp.min" ]; then
                grep -q "qosd's groups go without utilization clamps" "$QOSD_LOG" ||
                        fail "the kernel's groups have no cpu.uclamp.min and qosd did not say so"
                echo "SKIP: $TEST_NAME: $dir has no cpu.uclamp.min (kernel without CONFIG_UCLAMP_TASK_GROUP)"
                exit 77
        fi
        read -r min max <<<"$(class_uclamp "$c")"
        assert_eq "$(cat "$dir/cpu.uclamp.min")" "$(uclamp_percent "$min")" "$c: cpu.uclamp.min"
        assert_eq "$(cat "$dir/cpu.uclamp.max")" "$(uclamp_percent "$max")" "$c: cpu.uclamp.max"
done
stop_qosd
ok "each class group's cpu.uclamp.min/max as the class table has them"
