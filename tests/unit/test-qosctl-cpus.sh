#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosctl classes names the kinds of CPU of four machines from copies of
# their sysfs trees (tests/data/sysfs), and takes EfficientCPUs= and
# PerformanceCPUs= from qosd.conf under --root; a list that names no CPU
# of the machine is reported and not used.
set -euo pipefail

: "${QOSCTL:?}" "${QOS_SOURCE_ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# As root, classes tries qosd's groups: under names of this test's own.
export QOS_CGROUP_PREFIX=qos-test-cpus-$$
sysfs=$QOS_SOURCE_ROOT/tests/data/sysfs
cpus() { # sysfs-dir [root]
        "$QOSCTL" --root "${2:-$tmp/none}" classes --sys "$1" | sed -n 's/^cpus: //p'
}
expect() { # sysfs-dir expected [root]
        local got
        got=$(cpus "$1" "${3:-}")
        [ "$got" = "$2" ] || fail "${1##*/}: '$got', expected '$2'"
}

expect "$sysfs/alder-lake-i7-1260p" \
        "performance 0-7, efficient 8-15 (Intel hybrid: /sys/devices/cpu_core/cpus and cpu_atom/cpus)"
expect "$sysfs/meteor-lake-ultra7-155h" \
        "performance 0-11, efficient 12-21 (low-power 20-21) (Intel hybrid: /sys/devices/cpu_core/cpus and cpu_atom/cpus; E-cores without an L3 cache are low-power)"
expect "$sysfs/rk3588" \
        "performance 4-7, efficient 0-3 (cpu_capacity: 60% of the largest (1024) or less is efficient)"
expect "$sysfs/ryzen-7-5800x" "all 0-15 alike (one kind of CPU: the kernel tells none apart)"
echo "ok - the four machines' CPUs"

mkdir -p "$tmp/root/etc/qos"
printf '[Daemon]\nEfficientCPUs=12-15\n' >"$tmp/root/etc/qos/qosd.conf"
expect "$sysfs/ryzen-7-5800x" "performance 0-11, efficient 12-15 (qosd.conf: EfficientCPUs=)" "$tmp/root"
printf '[Daemon]\nPerformanceCPUs=0-3\nEfficientCPUs=4-7\n' >"$tmp/root/etc/qos/qosd.conf"
expect "$sysfs/rk3588" "performance 0-3, efficient 4-7 (qosd.conf: EfficientCPUs=, PerformanceCPUs=)" "$tmp/root"
echo "ok - qosd.conf's lists"

# A list for another machine: said, and the kernel's word kept.
printf '[Daemon]\nEfficientCPUs=20-23\n' >"$tmp/root/etc/qos/qosd.conf"
got=$(cpus "$sysfs/ryzen-7-5800x" "$tmp/root")
case $got in
"all 0-15 alike (one kind of CPU: the kernel tells none apart); EfficientCPUs= in $tmp/root/etc/qos/qosd.conf names no CPU of its own here, so it is not used") ;;
*) fail "a list of no present CPU: '$got'" ;;
esac
# One that does not parse: file:line, and the rest of the file applies.
printf '[Daemon]\nEfficientCPUs=2-x\nPerformanceCPUs=0-3\n' >"$tmp/root/etc/qos/qosd.conf"
err=$("$QOSCTL" --root "$tmp/root" classes --sys "$sysfs/rk3588" 2>&1 >/dev/null)
[[ $err == *"qosd.conf:2"*EfficientCPUs* ]] || fail "no file:line for a bad list: '$err'"
expect "$sysfs/rk3588" "performance 0-3, efficient 4-7 (qosd.conf: PerformanceCPUs=)" "$tmp/root"
echo "ok - bad lists are reported and not used"
