#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# A task on its way out is nobody's change. do_exit() takes an exiting
# task out of qosd's cpu group, and its process shows no executable once
# the leader has gone: a rescan then finds a group qosd did not set and no
# rule. qosd must forget such a task, never count it as a change made by
# someone else (ForeignChanges) or try to restore it:
# - a matched process whose main thread exited (pthread_exit) while its
#   other threads run on, the exit missed: its threads keep their class;
# - a matched program that died while qosd missed its exit (stopped, its
#   queue overflowing) and that its parent does not reap, at the rescan.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

BG=$(test_program qos-app-bg)
NAP=$QOSD_BIN/qos-napper
cp "$(command -v sleep)" "$NAP"
write_rule app-bg "$BG" background
write_rule napper "$NAP" background
bg=$(class_view background)
zombie() { grep -q '^State:.*Z' "/proc/$1/status"; }

start_qosd --receive-buffer 4096
foreign0=$(qosd_status ForeignChanges)

# Stop qosd and overflow its queue: the exit it then misses is found by
# the rescan that follows lost events.
lose_events() {
        RESCANS=$(qosd_status Rescans)
        kill -STOP "$QOSD_PID"
        on_exit "kill -CONT $QOSD_PID"
        overflow_queue
}
rescan() {
        kill -CONT "$QOSD_PID"
        [ "$(qosd_status EventsLost)" -gt 0 ] || fail "the queue did not overflow"
        wait_for status_above Rescans "$RESCANS" || fail "no rescan after the lost events"
}

# --- the leader exits, its threads run on
mkfifo "$TEST_TMP/leader.in"
"$BG" --main-exits one two <"$TEST_TMP/leader.in" >"$TEST_TMP/threads.out" &
leader=$!
on_exit "kill -KILL $leader"
exec 8>"$TEST_TMP/leader.in"
wait_for grep -qx ready "$TEST_TMP/threads.out" || fail "the program did not start"
two=$(awk '$2 == "two" { print $1 }' "$TEST_TMP/threads.out")
wait_view "$two" "$bg" "a thread of the matched program"
lose_events
exec 8>&-
wait_for zombie "$leader" || fail "the main thread did not exit"
rescan
assert_eq "$(qosd_status ForeignChanges)" "$foreign0" "changes by someone else after the rescan"
assert_eq "$(kernel_view "$two")" "$bg" "the process's running thread after the rescan"
ok "a process whose main thread exited keeps its class, and the exited thread is nobody's change"

# --- a zombie whose exit qosd missed
# The parent execs a sleep that never reaps the napper.
sh -c "'$NAP' 2 & echo \$! >'$TEST_TMP/napper.pid'; exec sleep 120" &
parent=$!
on_exit "kill -KILL $parent"
wait_for test -s "$TEST_TMP/napper.pid" || fail "the napper did not start"
nap=$(cat "$TEST_TMP/napper.pid")
wait_view "$nap" "$bg" "the matched program"
lose_events
wait_for zombie "$nap" || fail "the napper did not become a zombie: $(grep State "/proc/$nap/status")"
rescan
assert_eq "$(qosd_status ForeignChanges)" "$foreign0" "changes by someone else after the zombie was rescanned"
ok "a zombie whose exit was missed is forgotten, not taken for someone else's change"
stop_qosd TERM
