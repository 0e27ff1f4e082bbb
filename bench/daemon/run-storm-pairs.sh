#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two builds' qosd compared on one figure: qosd's CPU time per proc
# connector event in a fork storm of 20,000 processes of a program a rule
# matches (as run-daemon-bench.sh's matched storm), the two alternated
# ROUNDS times in one session, each round a fresh qosd of each. Loaded, the
# absolute figure moves between sessions; only the ratio within a round
# says which build costs more. Prints a row per run, then the medians.
# Root; a temporary root and a private bus; cleans up after itself.
#
#   bench/daemon/run-storm-pairs.sh BUILD_A BUILD_B [ROUNDS] [quiet|loaded]
#
# loaded: stress-ng --cpu 2 beside it, for the whole session.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: $0 BUILD_A BUILD_B [ROUNDS] [quiet|loaded]" >&2; exit 2; }
A=$(realpath "$1") B=$2
ROUNDS=${3:-6}
MODE=${4:-quiet}
source bench/daemon/bench-setup.sh
source bench/daemon/storm.sh
echo "EventRestUSec=250" >>"$QOSD_ROOT/etc/qos/qosd.conf"
storm_bin="$QOSD_BIN/qos-storm-matched"
cp "$B/tests/helpers/qos-fork-storm" "$storm_bin"
printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' "$storm_bin" \
        >"$QOSD_ROOT/etc/qos/apps.d/qos-storm-matched.conf"
if [ "$MODE" = loaded ]; then
        command -v stress-ng >/dev/null || { echo "stress-ng is missing (scripts/install-bench-deps.sh)" >&2; exit 1; }
        stress-ng --cpu 2 --timeout 0 >/dev/null 2>&1 &
        stress=$!
        on_exit "kill -INT $stress; wait $stress 2>/dev/null"
        sleep 1
fi

one_storm() { # build: µs of qosd CPU per event
        export QOSD=$1/src/daemon/qosd QOSCTL=$1/src/cli/qosctl
        start_qosd
        local e0 c0 e1 c1
        e0=$(qosd_status EventsSeen) c0=$(cpu_ns)
        storm "$storm_bin"
        e1=$(qosd_status EventsSeen) c1=$(cpu_ns)
        stop_qosd TERM
        awk -v c=$((c1 - c0)) -v e=$((e1 - e0)) 'BEGIN { printf "%.2f", c / 1e3 / e }'
}

echo "== matched fork storm of 20,000, $ROUNDS rounds, $MODE: µs of qosd CPU per event"
printf "%-6s %10s %10s %8s\n" round A B "B / A"
: >"$TEST_TMP/a" && : >"$TEST_TMP/b"
for ((round = 1; round <= ROUNDS; round++)); do
        a=$(one_storm "$A")
        b=$(one_storm "$(realpath "$B")")
        echo "$a" >>"$TEST_TMP/a"
        echo "$b" >>"$TEST_TMP/b"
        printf "%-6d %10s %10s %8.2f\n" "$round" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
done
printf "%-6s %10s %10s\n" median "$(median <"$TEST_TMP/a")" "$(median <"$TEST_TMP/b")"
echo "A: $A"
echo "B: $(realpath "$B")"
