#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a user's rule directory costs qosd per reload of that user's rules,
# by how many empty drop-in directories (NAME.conf.d/) it holds. One user
# with a rule file; for each size, REPS reloads (a touch of the file, then
# the UserReloads counter), each timed by qosd's own CPU time. And the
# cost of a user who touches that file 10 times a second for 10 s, as % of
# one CPU (their reloads come at most once per UserRulesReloadIntervalSec=,
# 1 s). Medians of the reloads.
# LOAD: quiet, or sessions (bench/load.sh: CPU hogs beside it).
#
#   bench/daemon/run-reload-bench.sh [BUILD] [REPS] [LOAD] [SIZES]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
REPS=${2:-5}
LOAD=${3:-quiet}
SIZES=${4:-0 1000 50000 300000}
source bench/daemon/bench-setup.sh
printf '[Daemon]\nUserRules=yes\nUserRulesReloadIntervalSec=1\n' >"$QOSD_ROOT/etc/qos/qosd.conf"

user=qos-b-reload
home=$TEST_TMP/home
mkdir -p "$home"
mount -t tmpfs -o size=512m,nr_inodes=400k,mode=755 qos-bench "$home"
on_exit "umount -l '$home'"
make_user "$user" "$home"
udir=$home/$user/.config/qos/apps.d
as_user() { runuser -u "$user" -- "$@"; }
as_user mkdir -p "$udir"
as_user sh -c "printf '[Match]\nExecutable=/nonexistent/bench\n\n[Process]\nClass=background\n' >'$udir/a.conf'"
QOSD_WRAPPER=setsid start_qosd
load_start "$LOAD"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cpu_ns() { awk '{ print $1 }' "/proc/$QOSD_PID/schedstat"; }
reloads() { qosd_status UserReloads; }

# One reload of the user's rules: qosd's CPU time for it, in ms.
one_reload() {
        local n0 c0
        n0=$(reloads)
        sleep 1.2 # past the user's reload interval
        c0=$(cpu_ns)
        as_user touch "$udir/a.conf"
        wait_for status_above UserReloads "$n0" || fail "no reload of the user's rules"
        sleep 0.2 # the reload's scan of the user's processes
        awk -v a="$c0" -v b="$(cpu_ns)" 'BEGIN { printf "%.1f\n", (b - a) / 1e6 }'
}

# A touch every 100 ms for 10 s: qosd's CPU over it, % of one CPU.
touch_storm() {
        local c0 c1
        c0=$(cpu_ns)
        for ((i = 0; i < 100; i++)); do
                as_user touch "$udir/a.conf"
                sleep 0.1
        done
        sleep 1.2
        c1=$(cpu_ns)
        awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f\n", (b - a) / 1e7 / 11.2 }'
}

echo "== user reloads: $REPS reloads per size, load: $LOAD; medians"
printf "%-22s %14s %18s %10s\n" "empty drop-in dirs" "ms per reload" "touched 10x/s: CPU%" "reloads"
made=0
for size in $SIZES; do
        if [ "$size" -gt "$made" ]; then
                as_user sh -c "cd '$udir' && seq -f 'd%05g.conf.d' $made $((size - 1)) | xargs -r mkdir"
                made=$size
        fi
        sleep 2 # the reload the new directories caused
        : >"$TEST_TMP/rows"
        for ((r = 1; r <= REPS; r++)); do
                one_reload >>"$TEST_TMP/rows"
        done
        n0=$(reloads)
        pct=$(touch_storm)
        printf "%-22s %14s %18s %10s\n" "$size" "$(median <"$TEST_TMP/rows")" "$pct" "$(($(reloads) - n0))"
done
