#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# PID reuse: a matched program (class background, original nice 5) runs
# under PID P and dies; an unmatched program is started under the very same
# PID (clone3 set_tid). It must never get the old class nor the old task's
# originals: not while qosd misses the exit (stopped, queue overflowed), not
# at the rescan, not at exit, not after a crash and restart; nor a thread
# the newcomer starts before the rescan, while qosd still holds the old
# process's record.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

BG=$(test_program qos-app-bg)
OTHER=$(test_program qos-app-other)
write_rule app-bg "$BG" background
bg=$(class_view background)

# Start the matched program at nice 5 and wait until qosd has set it.
start_old() {
        nice -n 5 "$BG" old >/dev/null &
        OLD=$!
        wait_view "$OLD" "$bg" "the matched program"
}
# Kill it and start the unmatched one under the same PID.
reuse_pid() { # pid
        kill -KILL "$1"
        wait "$1" 2>/dev/null || true
        "$QOS_SPAWN_AT_PID" "$1" "$OTHER" new >/dev/null &
        SPAWNER=$!
        on_exit "kill -KILL $1; kill $SPAWNER"
        wait_for grep -qx qos-app-other "/proc/$1/comm" || fail "could not start a program under PID $1"
}
new_view_ok() { # pid
        # Started by this shell at nice 0: the kernel's defaults, nothing else.
        assert_eq "$(kernel_view "$1")" "$def" "$2"
}
def=$(class_view utility)

# 1. qosd stopped while the PID changes hands, its queue overflowing.
start_qosd --receive-buffer 4096
start_old
p=$OLD
kill -STOP "$QOSD_PID"
on_exit "kill -CONT $QOSD_PID"
reuse_pid "$p"
# Overflow the queue so that the exit above is lost, not just delayed.
overflow_queue
kill -CONT "$QOSD_PID"
[ "$(qosd_status EventsLost)" -gt 0 ] || fail "the queue did not overflow"
WAIT_TIMEOUT=30 wait_for status_above Rescans 1 || fail "no rescan"
sleep 0.2
new_view_ok "$p" "new process under a reused PID, after a missed exit and a rescan"
"$QOSCTL" explain "$p" | grep "not managing this thread" >/dev/null || fail "explain claims the new process"
ok "a missed exit and a recycled PID: the new process is left alone"

# 2. At exit: restoring must not 'restore' the newcomer to nice 5.
stop_qosd TERM
new_view_ok "$p" "after SIGTERM"
ok "restoring on exit does not touch the newcomer"
kill -KILL "$p"; wait "$SPAWNER" 2>/dev/null || true

# 3. After a crash: the state file names (P, old start time); P is reused.
start_qosd
start_old
p=$OLD
stop_qosd KILL
grep -q "^C tid=$p " "$QOSD_ROOT/run/qos/qosd.state" || fail "state file lacks the old task"
reuse_pid "$p"
start_qosd
new_view_ok "$p" "new process under a reused PID after a crash and restart"
stop_qosd TERM
new_view_ok "$p" "after the restarted qosd exits"
ok "the previous run's record of a recycled PID is not applied to the newcomer"

# 4. The newcomer starts a thread while qosd still has the old record: the
# queue overflows before the old process dies, so its exit is lost, and
# the thread's event comes before the rescan that would drop the record.
start_qosd --receive-buffer 4096
start_old
p=$OLD
kill -STOP "$QOSD_PID"
overflow_queue
kill -KILL "$p"
wait "$p" 2>/dev/null || true
mkfifo "$TEST_TMP/cmd"
"$QOS_SPAWN_AT_PID" "$p" "$OTHER" --commands <"$TEST_TMP/cmd" >"$TEST_TMP/new.out" &
SPAWNER=$!
exec 7>"$TEST_TMP/cmd"
on_exit "kill -KILL $p; kill $SPAWNER; exec 7>&-"
wait_for grep -qx qos-app-other "/proc/$p/comm" || fail "could not start a program under PID $p"
kill -CONT "$QOSD_PID"
echo "spawn worker" >&7
wait_for grep ' worker$' "$TEST_TMP/new.out" || fail "the newcomer did not start its thread"
t=$(awk '$2 == "worker" { print $1 }' "$TEST_TMP/new.out")
[ "$(qosd_status EventsLost)" -gt 0 ] || fail "the queue did not overflow"
WAIT_TIMEOUT=30 wait_for status_above Rescans 1 || fail "no rescan"
sleep 0.2
new_view_ok "$t" "the newcomer's thread, started before the rescan"
new_view_ok "$p" "the newcomer itself"
"$QOSCTL" explain "$t" | grep "not managing this thread" >/dev/null || fail "explain claims the newcomer's thread"
stop_qosd TERM
new_view_ok "$t" "the newcomer's thread after qosd exits"
ok "a thread of the newcomer never gets the old process's class or original"
