#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Coexistence: a thread someone else changed after qosd (renice, chrt) is
# left alone on every later evaluation and on exit, counted, and explained;
# real-time threads are never touched, not even when a rule matches them.
source "$(dirname "$0")/lib.sh"
require_root
# The background group's budget (10 %): a thread qosd moved there is made real-time.
require_rt_budget background
start_dbus
qosd_root_init

BG=$(test_program qos-app-bg)
write_rule app-bg "$BG" background
bg=$(class_view background)
def=$(class_view utility)

# Real-time before qosd starts: rtkit-style. Never touched.
THREADS_BIN=$BG start_threads audio-rt plain
rt=$(tid_of audio-rt) plain=$(tid_of plain)
chrt -f -p 10 "$rt"
rt_before=$(kernel_view "$rt")
start_qosd
assert_eq "$(kernel_view "$rt")" "$rt_before" "real-time thread at start"
assert_eq "$(kernel_view "$plain")" "$bg" "its sibling"
ok "a real-time thread is not touched, its siblings are"

# Someone renices a managed thread; a later evaluation (reload) leaves it.
renice -n 3 -p "$plain" >/dev/null
manual=$(kernel_view "$plain")
"$QOSCTL" reload >/dev/null
assert_eq "$(kernel_view "$plain")" "$manual" "reniced thread after a re-evaluation"
assert_eq "$(qosd_status ForeignChanges)" 1 "ForeignChanges counter"
out=$("$QOSCTL" explain "$plain")
assert_contains "$out" "foreign background" "explain shows the foreign state"
assert_contains "$out" "changed by someone else" "explain says why it is left alone"
assert_contains "$("$QOSCTL" ps)" "foreign" "qosctl ps shows the foreign state"
ok "a manual renice is respected, counted and explained"

# chrt to real-time on a managed thread (rtkit granting RT): left alone.
THREADS_BIN=$BG start_threads worker
w=$(tid_of worker)
wait_view "$w" "$bg" "worker"
chrt -r -p 5 "$w"
rr=$(kernel_view "$w")
"$QOSCTL" reload >/dev/null
assert_eq "$(kernel_view "$w")" "$rr" "thread made real-time after qosd"
assert_contains "$("$QOSCTL" explain "$w")" "real-time or deadline thread: qosd never touches it" "explain on RT"
ok "a thread made real-time later is left alone"

# Exit: neither the manual change nor the real-time grant is reverted.
stop_qosd TERM
assert_eq "$(kernel_view "$plain")" "$manual" "reniced thread after exit"
assert_eq "$(kernel_view "$w")" "$rr" "real-time thread after exit"
assert_eq "$(kernel_view "$rt")" "$rt_before" "real-time-from-start thread after exit"
ok "restoring on exit does not revert other people's changes"

# ForeignChange=reapply takes threads back instead.
printf '[Daemon]\nUserRules=no\nForeignChange=reapply\n' >"$QOSD_ROOT/etc/qos/qosd.conf"
THREADS_BIN=$BG start_threads again
a=$(tid_of again)
start_qosd
wait_view "$a" "$bg" "thread at start"
renice -n 2 -p "$a" >/dev/null
"$QOSCTL" reload >/dev/null
wait_view "$a" "$bg" "ForeignChange=reapply"
stop_qosd TERM
assert_eq "$(kernel_view "$a")" "$def" "restored after reapply"
ok "ForeignChange=reapply takes the thread back"
