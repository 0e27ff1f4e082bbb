#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The daemon's figures: exec -> class applied over 1,000 execs (REPS runs),
# qosd CPU time per proc connector event in a 20,000-process fork storm,
# and qosd's RSS with 20,000 rules loaded. Root; runs the real qosd from
# BUILD on a temporary root with a private bus, cleans up after itself.
#
#   bench/daemon/run-daemon-bench.sh [BUILD] [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
REPS=${2:-5}
export QOSD=$PWD/$B/src/daemon/qosd QOSCTL=$PWD/$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$PWD/$B/tests/helpers/qos-test-threads QOS_FORK_STORM=$PWD/$B/tests/helpers/qos-fork-storm
source tests/integration/lib.sh
require_root
start_dbus
qosd_root_init

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

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "== exec -> class applied: 1,000 execs x $REPS runs (µs)"
start_qosd
for ((r = 1; r <= REPS; r++)); do
        "$B/bench/daemon/bench-exec-latency" 1000 "$probe" | tee -a "$TEST_TMP/exec.txt"
done
for what in "execve() call" "probe's main()"; do
        grep "from the $what" "$TEST_TMP/exec.txt" >"$TEST_TMP/rows"
        printf "median of runs, from the %-15s p50 %s  p99 %s  missed %s\n" "$what" \
                "$(awk '{ print $(NF-4) }' "$TEST_TMP/rows" | median)" \
                "$(awk '{ print $(NF-2) }' "$TEST_TMP/rows" | median)" \
                "$(awk '{ print $NF }' "$TEST_TMP/rows" | median)"
done

# CPU time from schedstat (ns), events from qosd's own counter.
cpu_ns() { awk '{ print $1 }' "/proc/$QOSD_PID/schedstat"; }
storm() { # program
        local s
        rm -f "$TEST_TMP/storm.out"
        "$1" 20000 >"$TEST_TMP/storm.out" &
        s=$!
        WAIT_TIMEOUT=120 wait_for grep -qx done "$TEST_TMP/storm.out" || fail "storm did not finish"
        kill -KILL "$s"
        wait "$s" 2>/dev/null || true
        sleep 0.3 # let qosd drain its queue
}
echo
echo "== qosd CPU per event, fork storm of 20,000 processes x $REPS (default buffer)"
printf "%-34s %10s %10s %12s %8s\n" "storm" "events" "lost" "CPU ms" "µs/ev"
for kind in plain bg; do
        for ((r = 1; r <= REPS; r++)); do
                e0=$(qosd_status EventsSeen) l0=$(qosd_status EventsLost) c0=$(cpu_ns)
                prog=$storm_plain
                [ "$kind" = bg ] && prog=$storm_bg
                storm "$prog"
                e1=$(qosd_status EventsSeen) l1=$(qosd_status EventsLost) c1=$(cpu_ns)
                printf "%-34s %10d %10d %12.1f %8.2f\n" \
                        "$([ "$kind" = bg ] && echo "matched (background) program" || echo "unmatched program")" \
                        $((e1 - e0)) $((l1 - l0)) "$(awk -v c=$((c1 - c0)) 'BEGIN { print c / 1e6 }')" \
                        "$(awk -v c=$((c1 - c0)) -v e=$((e1 - e0)) 'BEGIN { print c / 1e3 / e }')" | tee -a "$TEST_TMP/cpu-$kind.txt"
        done
        echo "median µs/event ($kind): $(awk '{ print $NF }' "$TEST_TMP/cpu-$kind.txt" | median)"
done
stop_qosd TERM

echo
echo "== qosd memory"
start_qosd
printf "%-24s %s\n" "rules" "$(qosd_status RulesLoaded)"
printf "%-24s %s\n" "VmRSS (2 rules)" "$(awk '/^VmRSS/ { print $2, $3 }' "/proc/$QOSD_PID/status")"
stop_qosd TERM
bench/write-app-rules.py "$QOSD_ROOT/etc/qos/apps.d" 20000
start_qosd
printf "%-24s %s\n" "rules" "$(qosd_status RulesLoaded)"
printf "%-24s %s\n" "VmRSS (20,000 apps)" "$(awk '/^VmRSS/ { print $2, $3 }' "/proc/$QOSD_PID/status")"
printf "%-24s %s\n" "VmHWM (20,000 apps)" "$(awk '/^VmHWM/ { print $2, $3 }' "/proc/$QOSD_PID/status")"
stop_qosd TERM
