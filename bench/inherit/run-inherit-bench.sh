#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The performance-inheritance figures: the priority-inversion scenario and
# the starved holder (REPS runs each, taking turns, pthread_mutex_t vs
# qos_mutex_t within each run), the uncontended lock+unlock cost, and the
# cost of an override applied directly (root) and lent through qosd (a
# test user, with the real qosd on a private bus). Root; cleans up after
# itself.
#
#   bench/inherit/run-inherit-bench.sh [BUILD] [REPS] [SECONDS] [LOAD]
#
# LOAD: "quiet" (default: whatever else runs on the machine), or
# "sessions": 2 x nproc CPU hogs, each in a session of its own, for the
# two contention scenarios (the scenario's own session is at autogroup
# nice -20, so these hogs take the CPU only as far as that lets them).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
REPS=${2:-3}
SECONDS_PER_LOCK=${3:-10}
LOAD=${4:-quiet}
export QOSD=$PWD/$B/src/daemon/qosd QOSCTL=$PWD/$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$PWD/$B/tests/helpers/qos-test-threads
bench=$PWD/$B/bench/inherit/qos-bench-inherit
source tests/integration/lib.sh
source bench/load.sh
require_root
load_start "$LOAD"

for ((r = 1; r <= REPS; r++)); do
        echo "== run $r of $REPS"
        setsid -w "$bench" inversion "$SECONDS_PER_LOCK"
        setsid -w "$bench" starvation "$SECONDS_PER_LOCK"
done
load_stop
echo
"$bench" uncontended 10
echo
"$bench" override 2000

start_dbus
qosd_root_init
start_qosd
user=qos-b-inherit
make_user "$user"
copy_for_user "$B/src/lib/libqos.so.0" "$bench"
runuser -u "$user" -- env LD_LIBRARY_PATH="$TEST_TMP/lib" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
        "$TEST_TMP/bin/qos-bench-inherit" override 2000
