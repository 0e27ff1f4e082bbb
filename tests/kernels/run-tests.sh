#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run the tests of a list written by list-tests.py, one after the other,
# inside a kernel-matrix VM (or on the host, for its own column). Each
# test's output goes to stdout; the machine-readable results go to fd 3:
#
#   QOS-TEST NAME SUITE PASS|FAIL|SKIP SECONDS
#   QOS-LOG NAME | LINE          (the last lines of a failed test's output)
#   QOS-DONE PASSED FAILED SKIPPED
#
# Usage: run-tests.sh TESTS.LIST 3>RESULTS
set -uo pipefail

list=$1
out=$(mktemp /tmp/qos-matrix-test.XXXXXX)
trap 'rm -f "$out"' EXIT
passed=0 failed=0 skipped=0

uptime_s() { read -r t _ </proc/uptime && echo "$t"; }

while IFS=$'\t' read -r name suite timeout workdir cmd; do
        echo "=== $name ($suite)"
        start=$(uptime_s)
        # Same exit-code protocol as meson: 0 pass, 77 skip, else fail.
        (cd "$workdir" && exec timeout "$timeout" bash -c "$cmd") >"$out" 2>&1 </dev/null
        rc=$?
        secs=$(awk -v a="$start" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
        awk 1 "$out" # a last line without its newline would swallow ours
        case $rc in
        0) result=PASS passed=$((passed + 1)) ;;
        77) result=SKIP skipped=$((skipped + 1)) ;;
        *)
                result=FAIL failed=$((failed + 1))
                [ "$rc" = 124 ] && echo "timed out after ${timeout}s" >>"$out"
                tail -n 20 "$out" | awk -v n="$name" '{ print "QOS-LOG " n " | " $0 }' >&3
                ;;
        esac
        echo "=== $name: $result (exit $rc, ${secs}s)"
        echo "QOS-TEST $name $suite $result $secs" >&3
done <"$list"

echo "QOS-DONE $passed $failed $skipped" >&3
