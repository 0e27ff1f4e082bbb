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

# A cpu controller file (cpu.idle, cpu.uclamp.min) where the controller is
# mounted (v1) or enabled for the root's children (v2, where the file
# exists only below the root: look in a throwaway child).
cpu_file() { # FILE
        local fstype dir opts
        while read -r _ dir fstype opts _; do
                if [ "$fstype" = cgroup ] && [[ ,$opts, == *,cpu,* ]]; then
                        [ -e "$dir/$1" ] && echo "supported (v1)" || echo "unsupported (v1)"
                        return
                fi
                if [ "$fstype" = cgroup2 ] && grep -qw cpu "$dir/cgroup.subtree_control" 2>/dev/null; then
                        local child=$dir/qos-matrix-probe.$$
                        mkdir "$child" 2>/dev/null || { echo "unknown (v2, cannot mkdir)"; return; }
                        [ -e "$child/$1" ] && echo "supported (v2)" || echo "unsupported (v2)"
                        rmdir "$child"
                        return
                fi
        done </proc/mounts
        echo "no cpu controller mounted"
}
echo "QOS-FEATURE cpu.idle $(cpu_file cpu.idle)" >&3
echo "QOS-FEATURE cpu.uclamp $(cpu_file cpu.uclamp.min)" >&3
# sched_ext: built in (the sysfs directory exists) and which BPF
# scheduler, if any, is loaded.
if [ -r /sys/kernel/sched_ext/state ]; then
        sched_ext="built in, $(cat /sys/kernel/sched_ext/state)"
        ops=$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null) && [ -n "$ops" ] && sched_ext+=" ($ops)"
else
        sched_ext="not built in"
fi
echo "QOS-FEATURE sched_ext $sched_ext" >&3
echo "QOS-FEATURE proc-connector $("$probe" proc-connector)" >&3
