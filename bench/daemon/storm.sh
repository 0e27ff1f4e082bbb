# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the daemon benchmarks after tests/integration/lib.sh: a fork
# storm of 20,000 processes of a program, qosd's CPU time, and a median.

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# qosd's CPU time so far, in ns (schedstat).
cpu_ns() { awk '{ print $1 }' "/proc/$QOSD_PID/schedstat"; }

storm() { # program
        local s
        rm -f "$TEST_TMP/storm.out"
        "$1" 20000 >"$TEST_TMP/storm.out" &
        s=$!
        WAIT_TIMEOUT=120 wait_for grep -qx done "$TEST_TMP/storm.out" || fail "storm did not finish"
        kill -KILL "$s"
        wait "$s" 2>/dev/null || true
        sleep 0.3 # let the listener drain its queue
}
