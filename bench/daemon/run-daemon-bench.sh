#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The daemon's figures: exec -> class applied over 1,000 execs (REPS runs),
# and qosd CPU time per proc connector event in a 20,000-process fork
# storm, both also for the floor (bench-connector-floor: the same event
# source doing nothing). Memory: run-memory-bench.sh. Root; runs the real
# qosd from BUILD on a temporary root with a private bus, cleans up after
# itself.
#
#   bench/daemon/run-daemon-bench.sh [BUILD] [REPS] [REST_USEC]
#
# REST_USEC: qosd's EventRestUSec= (and the floor's), default 250; 0 turns
# storm coalescing off.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
REPS=${2:-5}
REST=${3:-250}
export QOSD=$PWD/$B/src/daemon/qosd QOSCTL=$PWD/$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$PWD/$B/tests/helpers/qos-test-threads QOS_FORK_STORM=$PWD/$B/tests/helpers/qos-fork-storm
source tests/integration/lib.sh
require_root
start_dbus
qosd_root_init
echo "EventRestUSec=$REST" >>"$QOSD_ROOT/etc/qos/qosd.conf"

probe="$QOSD_BIN/qos-bench-probe"
cp "$B/bench/daemon/bench-exec-latency" "$probe"
storm_bg="$QOSD_BIN/qos-storm-bg"
storm_plain="$QOSD_BIN/qos-storm-plain"
cp "$QOS_FORK_STORM" "$storm_bg"
cp "$QOS_FORK_STORM" "$storm_plain"
for exe in "$probe" "$storm_bg"; do
        printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' "$exe" \
                >"$QOSD_ROOT/etc/qos/apps.d/$(basename "$exe").conf"
done

source bench/daemon/storm.sh

# The floor: the same event source and loop doing almost nothing
# (bench-connector-floor.c). It is started like qosd and stopped with TERM.
FLOOR_PID=
start_floor() {
        "$B/bench/daemon/bench-connector-floor" "$(basename "$1")" "$REST" >"$TEST_TMP/floor.out" 2>"$TEST_TMP/floor.err" &
        FLOOR_PID=$!
        wait_for grep -qx ready "$TEST_TMP/floor.err" || fail "the floor listener did not start"
}
stop_floor() {
        kill -TERM "$FLOOR_PID"
        wait "$FLOOR_PID" || fail "the floor listener failed"
        FLOOR_PID=
}
on_exit '[ -z "$FLOOR_PID" ] || kill "$FLOOR_PID"'

exec_rows() { # label
        : >"$TEST_TMP/exec.txt"
        for ((r = 1; r <= REPS; r++)); do
                "$B/bench/daemon/bench-exec-latency" 1000 "$probe" >>"$TEST_TMP/exec.txt"
        done
        for what in "execve() call" "probe's main()"; do
                grep "from the $what" "$TEST_TMP/exec.txt" >"$TEST_TMP/rows"
                printf "%-6s from the %-15s %9s %9s %7s\n" "$1" "$what" \
                        "$(awk '{ print $(NF-4) }' "$TEST_TMP/rows" | median)" \
                        "$(awk '{ print $(NF-2) }' "$TEST_TMP/rows" | median)" \
                        "$(awk '{ print $NF }' "$TEST_TMP/rows" | median)"
        done
}

echo "== exec -> class applied: 1,000 execs x $REPS runs, medians of the runs (µs)"
printf "%-6s %-24s %9s %9s %7s\n" "who" "" "p50" "p99" "missed"
start_qosd
exec_rows qosd
stop_qosd TERM
start_floor "$probe"
exec_rows floor
stop_floor

# CPU time from schedstat (cpu_ns, storm.sh) and events from qosd's own
# counter; the floor reports both itself.
echo
echo "== CPU per event, fork storm of 20,000 processes x $REPS (default buffer)"
printf "%-6s %-30s %10s %10s %12s %8s\n" "who" "storm" "events" "lost" "CPU ms" "µs/ev"
for kind in plain bg; do
        prog=$storm_plain what="unmatched program"
        [ "$kind" = bg ] && prog=$storm_bg what="matched (background) program"
        start_qosd
        for ((r = 1; r <= REPS; r++)); do
                e0=$(qosd_status EventsSeen) l0=$(qosd_status EventsLost) c0=$(cpu_ns)
                storm "$prog"
                e1=$(qosd_status EventsSeen) l1=$(qosd_status EventsLost) c1=$(cpu_ns)
                printf "%-6s %-30s %10d %10d %12.1f %8.2f\n" qosd "$what" \
                        $((e1 - e0)) $((l1 - l0)) "$(awk -v c=$((c1 - c0)) 'BEGIN { print c / 1e6 }')" \
                        "$(awk -v c=$((c1 - c0)) -v e=$((e1 - e0)) 'BEGIN { print c / 1e3 / e }')" | tee -a "$TEST_TMP/cpu-qosd-$kind.txt"
        done
        stop_qosd TERM
        for ((r = 1; r <= REPS; r++)); do
                start_floor "$storm_bg"
                storm "$prog"
                stop_floor
                read -r _ ev _ c <"$TEST_TMP/floor.out"
                printf "%-6s %-30s %10d %10s %12.1f %8.2f\n" floor "$what" "$ev" - \
                        "$(awk -v c="$c" 'BEGIN { print c / 1e6 }')" \
                        "$(awk -v c="$c" -v e="$ev" 'BEGIN { print c / 1e3 / e }')" | tee -a "$TEST_TMP/cpu-floor-$kind.txt"
        done
        q=$(awk '{ print $NF }' "$TEST_TMP/cpu-qosd-$kind.txt" | median)
        f=$(awk '{ print $NF }' "$TEST_TMP/cpu-floor-$kind.txt" | median)
        echo "median µs/event ($what): qosd $q, floor $f, qosd above the floor $(awk -v q="$q" -v f="$f" 'BEGIN { printf "%.2f", q - f }')"
done

