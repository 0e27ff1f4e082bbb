#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The scx_qos figure: boots the matrix's "ext" kernel (make kernel-ext)
# with the matrix initramfs, runs bench/scx/guest-figure.sh there, and
# prints the table (bench/scx/figure.py): per load, p99 of the frame and
# audio loops over the idle floor of the same scheduler, the hogs'
# throughput under scx_qos against EEVDF+qosd, the background hogs'
# longest stall, medians over the rounds; then scx_qos's own counters.
# FIGURE "kinds" runs bench/scx/guest-kinds.sh on 4 vCPUs instead: where
# background ran with CPUs 2-3 named efficient (bench/scx/kinds.py).
#
# Usage: bench/scx/run-figure.sh [BUILD_DIR] [ROUNDS] [SECONDS] [classes|kinds]
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
build=$(realpath "${1:-build}")
rounds=${2:-3} secs=${3:-10} figure=${4:-classes}
case $figure in
classes) guest=guest-figure.sh table=figure.py cpus=2 cells=6 ;;
kinds) guest=guest-kinds.sh table=kinds.py cpus=4 cells=4 ;;
*) echo "run-figure: no figure '$figure' (classes or kinds)" >&2; exit 2 ;;
esac
kernel=$src/build-kernels/ext/current/bzImage
[ -s "$kernel" ] || { echo "run-figure: no ext kernel; run make kernel-ext" >&2; exit 1; }
[ -x "$src/build-kernels/ext/current/scx/scx_qos" ] || { echo "run-figure: no scx_qos; run make kernel-ext" >&2; exit 1; }

scripts/install-kernel-deps.sh # qemu, busybox for the initramfs

out=$src/build-kernels/scx-$figure
mkdir -p "$out"
list=$out/figure.list
printf 'scx-figure\tbench\t%s\t%s\t%s\n' $((rounds * cells * (secs + 6) + 120)) "$src" \
        "bash $src/bench/scx/$guest $rounds $secs" >"$list"
tests/kernels/make-initramfs.sh "$out/initramfs.cpio" "$build" "$src" "$list"
# A host thread per vCPU (tests/kernels/ext/vm-accel.sh); the times are
# still TCG's, and the counters scx_qos keeps are what carries over to
# real hardware.
accel=$(tests/kernels/ext/vm-accel.sh "$src/build-kernels/ext/current")
QOS_VM_ACCEL=${QOS_VM_ACCEL:-$accel} QOS_VM_CPUS=$cpus QOS_VM_TIMEOUT=$((rounds * cells * (secs + 6) + 600)) \
        tests/kernels/boot.sh "$kernel" "$out/initramfs.cpio" "$out/results.txt" "$out/console.log" \
        qos.cgroup=unified || true
"bench/scx/$table" "$out/results.txt" | tee "$out/figure.txt"
