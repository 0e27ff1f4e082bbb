#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Background on the efficient CPUs, measured in the systemd VM with 4
# vCPUs and EfficientCPUs=2-3: a 60 Hz frame loop (user-interactive) beside
# 4 CPU hogs (background), untouched, with qosd's classes on one kind of
# CPU, and with the hogs placed. Prints the table (placement.py); writes
# it to build-systemd-vm/placement.txt. These vCPUs are all alike, so the
# figure shows what placement does to the hogs and to the frame, not the
# energy or the speed of a real efficient core (docs/placement.md).
#
# Usage: bench/placement/run-placement.sh [BUILD] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$build/bench/qos-bench-loop" "$here/placement.py" "$stage/"
echo "${2:-3}" >"$stage/rounds"

# idle=poll: under TCG a halted vCPU wakes late; see bench/systemd-vm.
QOS_VM_CPUS=4 QOS_VM_APPEND=idle=poll QOS_VM_BUSES=daemon QOS_VM_TIMEOUT=${QOS_VM_TIMEOUT:-1800} \
QOS_VM_FILES="$stage/qos-bench-loop $stage/placement.py $stage/rounds" \
        "$src/tests/systemd-vm/run.sh" "$build" "$here/guest-placement.sh" | grep -v '^systemd VM:' || true
grep -v '^QOS-DONE$' "$src/build-systemd-vm/results-daemon.txt" >"$src/build-systemd-vm/placement.txt" || true
