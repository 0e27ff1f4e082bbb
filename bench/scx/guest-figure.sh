#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inside a kernel-matrix VM on the "ext" kernel (bench/scx/run-figure.sh):
# the same cells under EEVDF with qosd's classes and under scx_qos, taking
# turns, ROUNDS times. A cell is a user-interactive 60 Hz frame loop (4 ms
# of work a frame) and an audio-like loop (128 frames at 48 kHz: 2.667 ms,
# 0.3 ms of work), both user-interactive, alone ("idle", the floor) or
# beside 4 background or 4 utility hogs. One line per cell on fd 3:
#
#   QOS-FIGURE ROUND SCHED LOAD frame_p99_us F audio_p99_us A
#              frame_wake_p99_us FW audio_wake_p99_us AW hog_units U
#              hog_max_gap_ms G hog_steady_gap_ms S
#
# (a loop's latency is from its release to the end of its work; the wake
# p99 is from the release to running, bench/loop-probe.c; the hogs'
# longest stall G is the worst of the four, S the same from 2 s on, a
# second after the loops started: their start-up stalls the hogs, under
# either scheduler, and sets G)
#
# Usage: guest-figure.sh ROUNDS SECONDS   (env QOSCTL, build/source paths
# from the matrix: BENCH=build/bench)
set -u
rounds=${1:-3} secs=${2:-10}
. "$(dirname "$0")/guest-lib.sh"
work=$(mktemp -d /tmp/qos-scx-figure.XXXXXX)

cell() { # sched load
        local load=$2 hogs=() class i
        case $load in
        bg4) class=background ;;
        util4) class=utility ;;
        *) class= ;;
        esac
        if [ -n "$class" ]; then
                for i in 1 2 3 4; do
                        echo | "$qosctl" run -c "$class" "$bench/qos-bench-hog" --seconds $((secs + 2)) --steady-after 2 \
                                >"$work/hog.$i" 2>&1 &
                        hogs+=($!)
                done
                sleep 1
        fi
        echo | "$qosctl" run -c user-interactive "$bench/qos-bench-loop" --period 16.667 --work 4 \
                --seconds "$secs" --out "$work/frame" >/dev/null 2>&1 &
        local frame=$!
        echo | "$qosctl" run -c user-interactive "$bench/qos-bench-loop" --period 2.667 --work 0.3 \
                --seconds "$secs" --out "$work/audio" >/dev/null 2>&1 &
        wait $! $frame
        local units=0 gap=0 steady=0
        if [ ${#hogs[@]} -gt 0 ]; then
                wait "${hogs[@]}"
                sed "s/^/hog: /" "$work"/hog.* >&2 # the console: each hog's line
                read -r units gap steady < <(cat "$work"/hog.* | awk '$1 == "units" {
                        u += $2
                        for (i = 1; i < NF; i++) {
                                if ($i == "max_gap_ms" && $(i + 1) > g) g = $(i + 1)
                                if ($i == "steady_max_gap_ms" && $(i + 1) > s) s = $(i + 1)
                        }
                } END { print u + 0, g + 0, s + 0 }')
                rm -f "$work"/hog.*
        fi
        echo "frame_p99_us $(p99 <"$work/frame") audio_p99_us $(p99 <"$work/audio")" \
                "frame_wake_p99_us $(p99 2 <"$work/frame") audio_wake_p99_us $(p99 2 <"$work/audio")" \
                "hog_units $units hog_max_gap_ms $gap hog_steady_gap_ms $steady"
}

# scx_qos is loaded for each cell, so its counters are that load's.
for r in $(seq "$rounds"); do
        for sched in eevdf scx; do
                for load in idle bg4 util4; do
                        [ "$sched" = scx ] && scx_start
                        line=$(cell "$sched" "$load")
                        echo "QOS-FIGURE $r $sched $load $line" >&3
                        echo "round $r $sched $load: $line"
                        scx_stop "QOS-FIGURE-SCX $r $load"
                done
        done
done
rm -rf "$work"
