#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Boot one kernel with the matrix initramfs under qemu's TCG (nested KVM is
# too slow on the machines this runs on), with a hard time limit. The VM
# writes its console to LOG and its results to RESULTS and powers itself
# off; qemu never outlives this script.
#
# Usage: boot.sh VMLINUZ INITRAMFS RESULTS LOG [KERNEL ARGS...]
# QOS_VM_TIMEOUT (seconds, default 1500: a loaded host slows TCG a lot),
# QOS_VM_CPUS (2), QOS_VM_MEMORY (1024M),
# QOS_VM_ACCEL (tcg; tcg,thread=single runs every vCPU on one host thread);
# QOS_VM_QEMU_ARGS: more qemu arguments, as words (a disk, a 9p share).
set -euo pipefail

kernel=$1 initrd=$2 results=$3 log=$4
shift 4
: >"$results"
: >"$log"

qemu=
cleanup() { if [ -n "$qemu" ]; then kill -KILL "$qemu" 2>/dev/null; wait "$qemu" 2>/dev/null; fi; true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2086 # QOS_VM_QEMU_ARGS is words
qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
        -accel "${QOS_VM_ACCEL:-tcg}" -cpu max -smp "${QOS_VM_CPUS:-2}" -m "${QOS_VM_MEMORY:-1024M}" \
        -kernel "$kernel" -initrd "$initrd" \
        -append "console=ttyS0 panic=-1 quiet $*" \
        -serial "file:$log" -serial "file:$results" ${QOS_VM_QEMU_ARGS:-} &
qemu=$!

deadline=$((SECONDS + ${QOS_VM_TIMEOUT:-1500}))
while kill -0 "$qemu" 2>/dev/null; do
        if [ "$SECONDS" -ge "$deadline" ]; then
                echo "QOS-TIMEOUT ${QOS_VM_TIMEOUT:-1500}" >>"$results"
                exit 1
        fi
        sleep 0.2
done
rc=0
wait "$qemu" || rc=$?
qemu=
exit "$rc"
