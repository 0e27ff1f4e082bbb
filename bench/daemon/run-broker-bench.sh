#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The broker's figure: a promotion through libqos and qosd (SetThreadClass),
# round trip in µs (p50, p99, max) as an unprivileged user sees it, with
# qosd idle and during a fork storm. Root; the real qosd from BUILD on a
# private bus and a temporary root and user, cleaned up afterwards.
#
#   bench/daemon/run-broker-bench.sh [BUILD] [CALLS]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
CALLS=${2:-600}
export QOSD=$PWD/$B/src/daemon/qosd QOSCTL=$PWD/$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$PWD/$B/tests/helpers/qos-test-threads QOS_FORK_STORM=$PWD/$B/tests/helpers/qos-fork-storm
source tests/integration/lib.sh
require_root
source bench/daemon/broker-setup.sh
broker_bench_start qos-bench-broker

run() {
        broker_bench_run "$CALLS"
}
printf "%-40s %8s %8s %8s\n" "brokered promotion, $CALLS calls" "p50 µs" "p99 µs" "max µs"
printf "%-40s %8s %8s %8s\n" "qosd idle" $(run)
"$QOS_FORK_STORM" 1000000 >/dev/null &
storm=$!
on_exit "kill -KILL $storm"
sleep 0.5
printf "%-40s %8s %8s %8s\n" "during a fork storm" $(run)
kill -KILL "$storm"
wait "$storm" 2>/dev/null || true
stop_qosd
