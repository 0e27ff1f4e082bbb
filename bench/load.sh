# SPDX-License-Identifier: LGPL-2.1-or-later
# The LOAD argument of the benchmark scripts, sourced after
# tests/integration/lib.sh (for on_exit):
#   quiet     whatever else runs on the machine, nothing of ours;
#   sessions  2 x nproc CPU hogs, each in a session of its own, until
#             load_stop or exit (a scenario run in its own session at
#             autogroup nice -20 is shared with them only as far as that
#             lets them).
# load_start LOAD, load_stop.

load_hogs=()

load_stop() {
        ((${#load_hogs[@]})) || return 0
        kill "${load_hogs[@]}" 2>/dev/null || true
        wait "${load_hogs[@]}" 2>/dev/null || true
        load_hogs=()
}

load_start() { # quiet|sessions
        case $1 in
        quiet) ;;
        sessions)
                on_exit load_stop
                # A background job of a script is no process group leader, so
                # setsid(1) makes the new session without forking: $! is the hog.
                for ((i = 0; i < 2 * $(nproc); i++)); do
                        setsid bash -c 'while :; do :; done' &
                        load_hogs+=($!)
                done
                ;;
        *)
                echo "LOAD must be quiet or sessions" >&2
                exit 2
                ;;
        esac
        echo "== load: $1 ($(cut -d' ' -f1-3 /proc/loadavg) before the runs)"
}
