# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the scx figures' guest scripts (guest-figure.sh, guest-kinds.sh)
# share, inside a kernel-matrix VM on the ext kernel: the paths the matrix
# gives, a work directory ($work, made by the caller), p99, and starting
# and stopping scx_qos around a cell.
. /qos-matrix/paths
# shellcheck disable=SC2034 # for the scripts that source this
bench=$build/bench
# shellcheck disable=SC2034
qosctl=$build/src/cli/qosctl
loader=$source/build-kernels/ext/current/scx/scx_qos

p99() { # [COLUMN]: of the numbers on stdin
        awk -v c="${1:-1}" '{ print $c }' | sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; print v[i] + 0 }'; }

# scx_qos with ARGS; returns once it says it is loaded (at most 60 s).
scx_start() { # args...
        "$loader" --stats 0 "$@" >"$work/scx.log" 2>&1 &
        scx_pid=$!
        for _ in $(seq 600); do
                grep -q '^scx_qos: loaded' "$work/scx.log" && return
                sleep 0.1
        done
}

# Stop it, if started: its counters on fd 3 after PREFIX, its output on
# the console.
scx_stop() { # prefix
        [ -n "${scx_pid:-}" ] || return 0
        kill -TERM "$scx_pid"
        wait "$scx_pid"
        scx_pid=
        echo "$1 $(grep '^scx_qos: stats' "$work/scx.log" | tail -n 1 | cut -d' ' -f3-)" >&3
        cat "$work/scx.log"
}
