#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The preload's figures: the untagged window of a new thread (creation ->
# class, as the thread sees it) and the share of short jobs that start or
# finish untagged, qosd alone vs qosd with the preload; what the
# constructor costs with the shipped rules and with 20,000 rule files.
# Root; real qosd from BUILD on a temporary root with a private bus.
#
#   bench/preload/run-preload-bench.sh [BUILD] [REPS] [PARTS]
#
# PARTS: any of threads,jobs,costs (default: all three).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
REPS=${2:-5}
PARTS=,${3:-threads,jobs,costs},
part() { [[ $PARTS == *",$1,"* ]]; }
export QOSD=$PWD/$B/src/daemon/qosd QOSCTL=$PWD/$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$PWD/$B/tests/helpers/qos-test-threads QOS_PRELOAD=$PWD/$B/src/preload/libqos-preload.so
export QOS_CLASS_CHECK=$PWD/$B/tests/helpers/qos-class-check
STORM=$PWD/$B/tests/helpers/qos-job-storm
source tests/integration/lib.sh
require_root
start_dbus
qosd_root_init
cp conf/apps.d/*.conf "$QOSD_ROOT/usr/share/qos/apps.d/"

PROBE=$QOSD_BIN/qos-bench-thr
DRIVER=$PWD/$B/bench/preload/bench-preload
cp "$DRIVER" "$PROBE"
write_rule probe "$PROBE" user-interactive
JOB=$QOSD_BIN/qos-job
cp "$QOS_CLASS_CHECK" "$JOB"
write_rule job "$JOB" background
PRE=(env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT")
ui_nice=$(class_triple user-interactive | cut -d' ' -f2)
bg=$(class_triple background)

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
p99() { sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.99); print v[(i > 0) ? i : 1] }'; }
field() { # name: the value after it on each line of stdin
        awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}
sum() { awk '{ s += $1 } END { print s + 0 }'; }

start_qosd
if part threads; then
echo "== new thread -> class (user-interactive: reset-on-fork, so a new thread starts at"
echo "   the defaults), 1,000 threads x $REPS runs, µs, medians of the runs' quantiles"
printf "%-22s %9s %9s %9s %16s %7s\n" "" "p50" "p99" "max" "at first look" "never"
for mode in qosd preload; do
        : >"$TEST_TMP/thr-$mode"
        for ((r = 1; r <= REPS; r++)); do
                if [ "$mode" = preload ]; then
                        "${PRE[@]}" "$PROBE" threads 1000 "$ui_nice" >>"$TEST_TMP/thr-$mode"
                else
                        "$PROBE" threads 1000 "$ui_nice" >>"$TEST_TMP/thr-$mode"
                fi
        done
        f=$TEST_TMP/thr-$mode
        printf "%-22s %9s %9s %9s %10s/%-5s %7s\n" \
                "$([ "$mode" = qosd ] && echo "qosd alone" || echo "qosd + preload")" \
                "$(field p50_us <"$f" | median)" "$(field p99_us <"$f" | median)" "$(field max_us <"$f" | median)" \
                "$(field at_first_look <"$f" | sum)" "$((REPS * 1000))" "$(field never <"$f" | sum)"
done
fi

if part jobs; then
echo
echo "== short jobs (background rule), 1,000 per row, 4 at a time: started / finished untagged"
printf "%-22s %10s %22s %22s\n" "" "work" "untagged at main()" "untagged at exit"
for work in 0 1000 10000; do
        for mode in qosd preload; do
                if [ "$mode" = preload ]; then
                        out=$("${PRE[@]}" "$STORM" 1000 4 "$work" "$bg" "$JOB")
                else
                        out=$("$STORM" 1000 4 "$work" "$bg" "$JOB")
                fi
                printf "%-22s %8s µs %16s/1000 %16s/1000\n" \
                        "$([ "$mode" = qosd ] && echo "qosd alone" || echo "qosd + preload")" "$work" \
                        "$(field untagged-at-start <<<"$out")" "$(field untagged-at-exit <<<"$out")"
        done
done
fi
stop_qosd TERM
part costs || exit 0

# The constructor's own clocks, from its diagnostics line: "total N us,
# cpu M us" (unmatched: loading and matching; matched: also the kernel
# probe and applying the class to the main thread).
ctor() { # runs program...
        local n=$1 log=$TEST_TMP/ctor.log
        shift
        : >"$log"
        for ((i = 0; i < n; i++)); do
                "${PRE[@]}" "QOS_PRELOAD_DEBUG=$log" "$@" >/dev/null
        done
        echo "$(field cpu <"$log" | median) $(grep -o 'total [0-9]*' "$log" | field total | median)"
}
rss() { # program args: VmRSS of it after 0.3 s, kB
        local p
        "$@" >/dev/null &
        p=$!
        sleep 0.3
        awk '/^VmRSS/ { print $2 }' "/proc/$p/status"
        kill "$p"
        wait "$p" 2>/dev/null || true
}
# exec+exit of /bin/true from a driver no rule matches, its CPU time (user +
# system, wait4) p50 over 10 x 50 runs alternating with and without.
exec_cpu() {
        : >"$TEST_TMP/e0" && : >"$TEST_TMP/e1"
        for ((i = 0; i < 10; i++)); do
                "$DRIVER" exec 50 /bin/true | field cpu_p50_us >>"$TEST_TMP/e0"
                "${PRE[@]}" "$DRIVER" exec 50 /bin/true | field cpu_p50_us >>"$TEST_TMP/e1"
        done
        echo "$(median <"$TEST_TMP/e0") $(median <"$TEST_TMP/e1")"
}
costs() { # label
        local files
        files=$(ls "$QOSD_ROOT/usr/share/qos/apps.d" "$QOSD_ROOT/etc/qos/apps.d" | grep -c '\.conf$')
        read -r ucpu uwall < <(ctor "${RUNS:-200}" /bin/true)
        read -r mcpu mwall < <(ctor "${RUNS:-200}" "$JOB" job 0)
        read -r e0 e1 < <(exec_cpu)
        printf "%-34s %6s %9s %9s %9s %9s %9s -> %-9s %7s -> %s\n" "$1" "$files" "$ucpu" "$uwall" "$mcpu" "$mwall" \
                "$e0" "$e1" "$(rss "$JOB" job 3000000)" "$(rss "${PRE[@]}" "$JOB" job 3000000)"
}
echo
echo "== constructor: p50 µs of its CPU time and wall clock (unmatched /bin/true, matched job);"
echo "   CPU time of one exec+exit of /bin/true, p50 µs, without -> with; RSS of a matched job, kB"
printf "%-34s %6s %9s %9s %9s %9s %21s %17s\n" "" "files" "unm. cpu" "unm. wall" "match cpu" "match wall" \
        "exec+exit cpu" "RSS"
costs "shipped rules"
bench/write-app-rules.py "$QOSD_ROOT/etc/qos/apps.d" 20000
costs "+ 20,000 files: left to qosd"
PRE+=(QOS_PRELOAD_MAX_FILES=0)
RUNS=30 costs "+ 20,000 files: loaded (no limit)"
