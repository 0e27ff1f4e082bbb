#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# qosctl's command-line contract: -a on a multi-threaded process, threads
# that exit mid-apply, errors and exit codes.
. "$(dirname "$0")/lib.sh"
require_root

start_threads alpha beta gamma
pid=$THREADS_PID

"$QOSCTL" set -c background -p "$pid" -a -v >"$TEST_TMP/set.out" || fail "set -a exited $?"
for name in alpha beta gamma; do
        tid=$(tid_of "$name")
        assert_eq "$(stat_field "$tid" 41)" 5 "$name is SCHED_IDLE after set -a"
        assert_contains "$(cat "$TEST_TMP/set.out")" "$tid ($name): policy normal->idle" "-v names the change"
done
assert_eq "$("$QOSCTL" get -p "$pid" -a | awk 'NR > 1 { print $3 }' | sort -u)" background "get -a shows every thread"
assert_eq "$(stat_field "$pid" 41)" 5 "the main thread too"
ok "set -a reaches every thread"

"$QOSCTL" set -c utility -p "$(tid_of beta)"
assert_eq "$(stat_field "$(tid_of beta)" 41) $(stat_field "$(tid_of alpha)" 41)" "0 5" "without -a only one thread"
ok "set without -a changes one thread"

# Threads that exit between listing and applying are not errors.
start_threads --churn steady
for i in $(seq 1 50); do
        "$QOSCTL" set -c background -p "$THREADS_PID" -a || fail "set -a on a churning process exited $? (round $i)"
done
assert_eq "$(stat_field "$(tid_of steady)" 41)" 5 "steady thread of the churning process"
ok "threads exiting mid-apply are skipped silently"

expect_exit 2 "$QOSCTL" set -c turbo -p "$pid"
assert_contains "$OUT" "user-interactive (ui), user-initiated (in), utility (ut, default), background (bg)" "unknown class lists the valid names"
expect_exit 2 "$QOSCTL" set -p "$pid"
expect_exit 2 "$QOSCTL" set -c ui -p notapid
expect_exit 2 "$QOSCTL" frobnicate
expect_exit 3 "$QOSCTL" set -c ui -p 999999999
expect_exit 3 "$QOSCTL" get -p 999999999
expect_exit 127 "$QOSCTL" run -c bg /nonexistent/program
ok "usage errors exit 2, missing threads 3, missing commands 127"

"$QOSCTL" --help | grep "Usage: qosctl" >/dev/null || fail "--help"
"$QOSCTL" --version | grep "^qosctl [0-9]" >/dev/null || fail "--version"
for cmd in classes run set get; do
        "$QOSCTL" "$cmd" --help | grep "Usage: qosctl $cmd" >/dev/null || fail "$cmd --help"
done
ok "help and version"

# Each knob's row agrees with the kernel's own answer: values shown plain
# and "supported" where it has the knob, in parentheses with the reason
# where it lacks it (uclamp on every Debian kernel, slices before 6.12).
out=$("$QOSCTL" classes)
for knob in slice uclamp; do
        row=$(awk -v k="$knob" '$1 == k' <<<"$out")
        case "$("$QOS_KERNEL_PROBE" "$knob")" in
        supported) [[ $row == *" supported" && $row != *"("* ]] || fail "$knob works here but: $row" ;;
        *) [[ $row == *"("* && $row != *" supported" ]] || fail "$knob is missing here but: $row" ;;
        esac
done
ok "classes table"

# The default class of run is background, the one anyone may choose.
assert_eq "$("$QOSCTL" run sh -c 'cat /proc/$$/stat' | awk '{ print $(NF - 11) }')" 5 "run without -c is background"
ok "run defaults to background"
