#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inside a kernel-matrix VM on the "ext" kernel with 4 vCPUs
# (bench/scx/run-figure.sh ... kinds): two user-interactive 60 Hz frame
# loops (4 ms of work a frame) beside 2 background hogs that nothing
# confines (qosctl run -c background, no EfficientCPUs=): room for both on
# the efficient CPUs, if the scheduler puts them there. Under EEVDF with
# qosd's classes, under scx_qos with all CPUs alike, and under scx_qos
# told CPUs 2-3 are efficient; taking turns, ROUNDS times. Before each
# round the frame loops alone give the floor. One line per cell on fd 3:
#
#   QOS-KINDS ROUND VARIANT frame_p99_us F hog_units U hog_efficient_pct P
#
# P: the hogs' work done on CPUs 2-3 (where each unit ended, qos-bench-hog's
# on_cpus), in percent.
#
# Usage: guest-kinds.sh ROUNDS SECONDS
set -u
rounds=${1:-3} secs=${2:-10}
. "$(dirname "$0")/guest-lib.sh"
work=$(mktemp -d /tmp/qos-scx-kinds.XXXXXX)

frames() { # hogs?
        local i hogs=()
        if [ "$1" = hogs ]; then
                for i in 1 2; do
                        echo | "$qosctl" run -c background "$bench/qos-bench-hog" --seconds $((secs + 2)) \
                                >"$work/hog.$i" 2>&1 &
                        hogs+=($!)
                done
                sleep 1
        fi
        for i in 1 2; do
                echo | "$qosctl" run -c user-interactive "$bench/qos-bench-loop" --period 16.667 --work 4 \
                        --seconds "$secs" --out "$work/frame.$i" >/dev/null 2>&1 &
        done
        wait $(jobs -p)
        local p
        p=$(cat "$work"/frame.* | p99)
        rm -f "$work"/frame.*
        if [ ${#hogs[@]} -eq 0 ]; then
                echo "frame_p99_us $p"
                return
        fi
        sed "s/^/hog: /" "$work"/hog.* >&2
        # on_cpus 0:N,1:M,...: the units ended on each CPU.
        cat "$work"/hog.* | awk -v p="$p" '$1 == "units" {
                u += $2
                for (i = 1; i < NF; i++)
                        if ($i == "on_cpus") {
                                n = split($(i + 1), cs, ",")
                                for (j = 1; j <= n; j++) {
                                        split(cs[j], kv, ":")
                                        all += kv[2]
                                        if (kv[1] == 2 || kv[1] == 3) eff += kv[2]
                                }
                        }
        } END { printf "frame_p99_us %d hog_units %d hog_efficient_pct %.1f\n", p, u, all ? 100 * eff / all : 0 }'
        rm -f "$work"/hog.*
}

for r in $(seq "$rounds"); do
        echo "QOS-KINDS $r floor $(frames alone)" >&3
        for variant in eevdf alike kinds; do
                case $variant in
                alike) scx_start --efficient-cpus none ;;
                kinds) scx_start --efficient-cpus 2-3 ;;
                esac
                line=$(frames hogs)
                echo "QOS-KINDS $r $variant $line" >&3
                echo "round $r $variant: $line"
                scx_stop "QOS-KINDS-SCX $r $variant"
        done
done
rm -rf "$work"
