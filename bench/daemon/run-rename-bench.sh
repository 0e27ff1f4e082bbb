#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a program that renames its threads in a loop costs qosd and everyone
# else. A matched program with THREADS threads renames, for SECONDS, either
# its main thread (whose name the rules match: every thread is evaluated
# again) or every thread, as fast as it can. Meanwhile `qosctl status` is
# timed every 100 ms and a new matched process is started every second and
# timed until it has its class. Per row, medians over REPS runs:
#   renames/s   what the program managed
#   qosd CPU    qosd's CPU time over the storm, % of one CPU
#   after       qosd's CPU time in the 5 s after the storm (its backlog)
#   status max  the slowest `qosctl status` round trip, ms
#   class max   the longest wait of a new process for its class, ms
# LOAD: quiet, or sessions (bench/load.sh: CPU hogs beside it).
#
#   bench/daemon/run-rename-bench.sh [BUILD] [REPS] [SECONDS] [LOAD] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
REPS=${2:-3}
SECS=${3:-5}
LOAD=${4:-quiet}
THREADS=${5:-1000}
source bench/daemon/bench-setup.sh

storm="$QOSD_BIN/qos-rename-storm"
cp "$B/bench/daemon/bench-rename-storm" "$storm"
probe=$(test_program qos-rename-probe)
printf '[Match]\nExecutable=%s\n\n[Process]\nClass=utility\n\n[Thread:storm-*]\nClass=background\n' "$storm" \
        >"$QOSD_ROOT/etc/qos/apps.d/storm.conf"
write_rule probe "$probe" background
# Each in a session of its own, as a system service and an app are: with
# autogroup, not in one group where a thousand busy threads share qosd's CPU.
QOSD_WRAPPER=setsid start_qosd
load_start "$LOAD"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cpu_ns() { awk '{ print $1 }' "/proc/$QOSD_PID/schedstat"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Every 100 ms until told to stop: one `qosctl status`, its time in ms.
status_sampler() { # out
        while [ ! -e "$TEST_TMP/stop-sampling" ]; do
                local s e
                s=$(now_ms)
                "$QOSCTL" status >/dev/null 2>&1 || echo "failed" >>"$1.err"
                e=$(now_ms)
                echo $((e - s)) >>"$1"
                sleep 0.1
        done
}

# Every second until told to stop: a new matched process, timed until its
# nice is background's (19), in ms.
class_sampler() { # out
        while [ ! -e "$TEST_TMP/stop-sampling" ]; do
                local s p f i
                s=$(now_ms)
                "$probe" x >/dev/null &
                p=$!
                for ((i = 0; i < 12000; i++)); do
                        read -r -a f <"/proc/$p/stat" || break
                        [ "${f[18]}" = 19 ] && break
                        sleep 0.005
                done
                echo $(($(now_ms) - s)) >>"$1"
                kill "$p"
                wait "$p" 2>/dev/null || true
                sleep 1
        done
}

one_run() { # mode: "renames/s cpu% after-s status-max class-max"
        local mode=$1 st cl c0 c1 c2 n
        st="$TEST_TMP/status.$mode" cl="$TEST_TMP/class.$mode"
        rm -f "$st" "$cl" "$TEST_TMP/stop-sampling"
        coproc STORM { exec setsid "$storm" "$THREADS" "$SECS" "$mode" 2>/dev/null; }
        local spid=$STORM_PID
        read -r -t 60 line <&"${STORM[0]}" || fail "the storm did not start"
        [ "$line" = ready ] || fail "the storm said '$line'"
        sleep 1 # qosd has applied the new threads
        status_sampler "$st" &
        local sp=$!
        class_sampler "$cl" &
        local cp=$!
        c0=$(cpu_ns)
        echo go >&"${STORM[1]}"
        read -r -t $((SECS + 60)) _ n <&"${STORM[0]}" || fail "the storm did not end"
        c1=$(cpu_ns)
        sleep 5
        c2=$(cpu_ns)
        touch "$TEST_TMP/stop-sampling"
        wait "$sp" "$cp" 2>/dev/null || true
        kill "$spid"
        wait "$spid" 2>/dev/null || true
        echo "$((n / SECS)) $(awk -v a="$c0" -v b="$c1" -v s="$SECS" 'BEGIN { printf "%.1f", (b - a) / 1e7 / s }') \
$(awk -v a="$c1" -v b="$c2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }') \
$(sort -n "$st" | tail -1) $(sort -n "$cl" | tail -1)"
}

echo "== thread renames: $THREADS threads, $SECS s storms, $REPS runs, load: $LOAD; medians of the runs"
printf "%-6s %12s %10s %8s %12s %11s\n" "renamer" "renames/s" "qosd CPU%" "after s" "status max" "class max"
for mode in main all; do
        : >"$TEST_TMP/rows"
        for ((r = 1; r <= REPS; r++)); do
                one_run "$mode" >>"$TEST_TMP/rows"
        done
        printf "%-6s %12s %10s %8s %9s ms %8s ms\n" "$mode" \
                "$(awk '{ print $1 }' "$TEST_TMP/rows" | median)" \
                "$(awk '{ print $2 }' "$TEST_TMP/rows" | median)" \
                "$(awk '{ print $3 }' "$TEST_TMP/rows" | median)" \
                "$(awk '{ print $4 }' "$TEST_TMP/rows" | median)" \
                "$(awk '{ print $5 }' "$TEST_TMP/rows" | median)"
done
