#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The preload's lending figure, on an unmodified pthread_mutex_t program
# (bench-plain-mutex) whose threads the rules give classes. Root (loans
# applied directly, the scenario's session isolated); no qosd.
#
#  - priority inversion (utility hogs preempt the background holder while
#    a user-interactive thread waits for it): REPS runs of SECONDS each
#    way, taking turns:
#    preloaded with lending off (QOS_PRELOAD_LEND=0: the same classes,
#    applied by the same preload, nothing lent) and with lending on.
#    Lock-wait p50/p99/max per run (every sample), then, pooled over the
#    runs, the waits that found the holder inside (> 10 µs): the
#    inversions themselves, whose number depends on how often a starved
#    holder gets to take the lock at all.
#  - uncontended lock+unlock: UNC_RUNS processes each way, taking turns,
#    not preloaded at all and preloaded (lending on); CPU ns per pair,
#    median and range.
#
#   bench/preload/run-lend-bench.sh [BUILD] [REPS] [SECONDS] [UNC_RUNS] [MILLIONS] [LOAD]
#
# LOAD (bench/load.sh): quiet (default) or sessions, for the inversion
# runs; the uncontended runs are always on what else the machine runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
REPS=${2:-5}
SECS=${3:-10}
UNC_RUNS=${4:-21}
MILLIONS=${5:-10}
LOAD=${6:-quiet}
export QOSD=$PWD/$B/src/daemon/qosd QOSCTL=$PWD/$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$PWD/$B/tests/helpers/qos-test-threads QOS_PRELOAD=$PWD/$B/src/preload/libqos-preload.so
source tests/integration/lib.sh
source bench/load.sh
require_root
qosd_root_init
BENCH=$QOSD_BIN/bench-plain-mutex
cp "$PWD/$B/bench/preload/bench-plain-mutex" "$BENCH"
write_rule bench "$BENCH" - "ui-*" user-interactive "bg-*" background "hog" utility
pre=(env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT")

# p50 p99 max of the numbers in a file (µs in, ms out).
stats() {
        sort -n "$1" | awk '{ v[NR] = $1 } END {
                printf "%8d %8.3f %8.3f %8.3f", NR, v[int((NR - 1) * 0.5) + 1] / 1000,
                        v[int((NR - 1) * 0.99) + 1] / 1000, v[NR] / 1000 }'
}
median_range() { # file: "median (min-max)"
        sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.3f (%.3f-%.3f)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

load_start "$LOAD"
echo "priority inversion: ui-probe vs a background holder (1 ms of CPU per hold), 2 x nproc utility hogs,"
echo "$REPS x $SECS s each way, taking turns; lock wait in ms"
printf "%-4s %-12s %8s %8s %8s %8s\n" run lending samples p50 p99 max
: >"$TEST_TMP/p99.off"
: >"$TEST_TMP/p99.on"
: >"$TEST_TMP/waits.off"
: >"$TEST_TMP/waits.on"
for ((r = 1; r <= REPS; r++)); do
        for lend in off on; do
                flag=1
                [ "$lend" = on ] || flag=0
                setsid -w "${pre[@]}" QOS_PRELOAD_LEND=$flag "$BENCH" inversion "$SECS" \
                        >"$TEST_TMP/waits" 2>"$TEST_TMP/summary"
                line=$(stats "$TEST_TMP/waits")
                printf "%-4s %-12s %s   %s\n" "$r" "$lend" "$line" "$(cat "$TEST_TMP/summary")"
                awk '{ print $3 }' <<<"$line" >>"$TEST_TMP/p99.$lend"
                awk '$1 > 10' "$TEST_TMP/waits" >>"$TEST_TMP/waits.$lend"
        done
done
off=$(median_range "$TEST_TMP/p99.off")
on=$(median_range "$TEST_TMP/p99.on")
echo "per-run p99 median (range), ms: lending off $off, on $on"
printf "%-17s %8s %8s %8s %8s\n" "pooled waits>10us" samples p50 p99 max
printf "%-17s %s\n" off "$(stats "$TEST_TMP/waits.off")" on "$(stats "$TEST_TMP/waits.on")"
p_off=$(stats "$TEST_TMP/waits.off" | awk '{ print $3 }')
p_on=$(stats "$TEST_TMP/waits.on" | awk '{ print $3 }')
echo "pooled p99: $(awk -v a="$p_off" -v b="$p_on" 'BEGIN { printf "%.1f", a / b }')x lower with lending"
load_stop
echo

echo "uncontended lock+unlock: $UNC_RUNS processes each way, taking turns, $MILLIONS M pairs each, CPU ns per pair"
: >"$TEST_TMP/ns.plain"
: >"$TEST_TMP/ns.preload"
for ((r = 1; r <= UNC_RUNS; r++)); do
        "$BENCH" uncontended "$MILLIONS" >>"$TEST_TMP/ns.plain"
        "${pre[@]}" "$BENCH" uncontended "$MILLIONS" >>"$TEST_TMP/ns.preload"
done
plain=$(median_range "$TEST_TMP/ns.plain")
preload=$(median_range "$TEST_TMP/ns.preload")
echo "plain glibc: $plain; preloaded: $preload; preloaded/plain medians $(awk -v a="${preload%% *}" -v b="${plain%% *}" 'BEGIN { printf "%.3f", a / b }')"
