#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What this kernel offers qosd, for the kernel x knob table, on fd 3:
#
#   QOS-KERNEL RELEASE
#   QOS-CGROUP unified|hybrid|none   (v2 only; v1 cpu controller beside v2)
#   QOS-CLASSES | LINE       (qosctl classes: the per-thread knobs as qosd sees them)
#   QOS-FEATURE NAME VALUE   (what the group layer and the daemon rely on,
#                            asked of the kernel directly)
#
# Usage: report-kernel.sh QOSCTL QOS_KERNEL_PROBE 3>RESULTS
set -uo pipefail

qosctl=$1
probe=$2

echo "QOS-KERNEL $(uname -r)" >&3
if awk '$2 == "/sys/fs/cgroup" && $3 == "cgroup2" { found = 1 } END { exit !found }' /proc/mounts; then
        echo "QOS-CGROUP unified" >&3
elif awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { found = 1 } END { exit !found }' /proc/mounts; then
        echo "QOS-CGROUP hybrid" >&3
else
        echo "QOS-CGROUP none" >&3
fi
"$qosctl" classes 2>&1 | sed 's/^/QOS-CLASSES | /' >&3

# Autogroup: built in (the sysctl exists) and on or off. Debian's 6.1
# kernels boot with it off; /proc/PID/autogroup exists either way.
ag=/proc/sys/kernel/sched_autogroup_enabled
if [ ! -e $ag ]; then
        autogroup="not built in"
elif [ "$(cat $ag)" = 1 ]; then
        autogroup=on
else
        autogroup="off"
fi
echo "QOS-FEATURE autogroup $autogroup" >&3

# cpu.idle where the cpu controller is mounted (v1) or enabled for the
# root's children (v2, where the file exists only below the root: look in
# a throwaway child).
cpu_idle() {
        local fstype dir opts
        while read -r _ dir fstype opts _; do
                if [ "$fstype" = cgroup ] && [[ ,$opts, == *,cpu,* ]]; then
                        [ -e "$dir/cpu.idle" ] && echo "supported (v1)" || echo "unsupported (v1)"
                        return
                fi
                if [ "$fstype" = cgroup2 ] && grep -qw cpu "$dir/cgroup.subtree_control" 2>/dev/null; then
                        local child=$dir/qos-matrix-probe.$$
                        mkdir "$child" 2>/dev/null || { echo "unknown (v2, cannot mkdir)"; return; }
                        [ -e "$child/cpu.idle" ] && echo "supported (v2)" || echo "unsupported (v2)"
                        rmdir "$child"
                        return
                fi
        done </proc/mounts
        echo "no cpu controller mounted"
}
echo "QOS-FEATURE cpu.idle $(cpu_idle)" >&3
echo "QOS-FEATURE proc-connector $("$probe" proc-connector)" >&3
