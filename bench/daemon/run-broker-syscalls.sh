#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What qosd does in the kernel for one brokered promotion: strace on qosd
# while an unprivileged user's program asks CALLS times (bench-broker-rtt,
# libqos's SetThreadClass). Prints, per promotion, how often qosd opened
# the asking thread (pidfd_open on its TID) and read its /proc files, and
# the system calls of all kinds that qosd made in the while (which also
# counts whatever else the machine ran). Root; the real qosd from BUILD on
# a private bus and a temporary root and user, cleaned up afterwards.
#
#   bench/daemon/run-broker-syscalls.sh [BUILD] [CALLS]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=$(realpath "${1:-build}")
CALLS=${2:-100}
export QOSD=$B/src/daemon/qosd QOSCTL=$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$B/tests/helpers/qos-test-threads
source tests/integration/lib.sh
require_root
command -v strace >/dev/null || scripts/install-deps.sh strace >&2
source bench/daemon/broker-setup.sh
broker_bench_start qos-bench-sysc

trace=$TEST_TMP/strace
# One tracer (a process takes only one): every call, counted afterwards.
strace -f -qq -o "$trace" -p "$QOSD_PID" &
tracer=$!
on_exit "kill -INT $tracer 2>/dev/null"
sleep 1
broker_bench_run "$CALLS" >/dev/null &
bench=$!
sleep 0.2
asker=$(pgrep -n -f "$TEST_TMP/bin/bench-broker-rtt" || true)
wait "$bench"
sleep 0.5
kill -INT "$tracer"
wait "$tracer" 2>/dev/null || true

per() { awk -v n="$1" -v c="$CALLS" 'BEGIN { printf "%.2f", n / c }'; }
opens=$(grep -c "pidfd_open($asker," "$trace" || true)
procs=$(grep -c "openat(.*\"/proc/$asker/" "$trace" || true)
getattr=$(grep -c "sched_getattr($asker," "$trace" || true)
printf "%-44s %10s %12s\n" "brokered promotion, qosd of $(git -C "$B/.." rev-parse --short HEAD 2>/dev/null || echo "$B")" "calls" "per request"
printf "%-44s %10s %12s\n" "pidfd_open of the asking thread" "$opens" "$(per "$opens")"
printf "%-44s %10s %12s\n" "/proc files of the asking process opened" "$procs" "$(per "$procs")"
printf "%-44s %10s %12s\n" "sched_getattr of the asking thread" "$getattr" "$(per "$getattr")"
echo "all system calls of qosd meanwhile, those made $CALLS times or more:"
sed -E 's/^[0-9]+ +//; s/\(.*//' "$trace" | grep -E '^[a-z_0-9]+$' | sort | uniq -c | sort -rn |
        awk -v c="$CALLS" '$1 >= c { printf "  %-24s %8d %10.2f\n", $2, $1, $1 / c }'
printf "  %-24s %8d %10.2f\n" total "$(wc -l <"$trace")" "$(per "$(wc -l <"$trace")")"
stop_qosd
