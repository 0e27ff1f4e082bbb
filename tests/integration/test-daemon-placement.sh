#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Background on the efficient CPUs. qosd.conf names the last CPU of the
# machine efficient (EfficientCPUs=; the other CPUs are performance ones):
# a background thread may then run only there (Cpus_allowed_list, and
# where a busy one ran, /proc/TID/stat field 39), the other classes keep
# every CPU; a thread someone narrowed (taskset) keeps its narrower mask,
# and one narrowed to performance CPUs only is left where it is, said in
# the log; qosctl run -c background places its command too. SIGKILL and
# a restart keep the originals, SIGTERM restores every mask.
source "$(dirname "$0")/lib.sh"
require_root
ncpu=$(nproc --all)
[ "$ncpu" -ge 2 ] || skip "one CPU: nothing to place"
last=$((ncpu - 1))
all=0-$last
[ "$ncpu" -gt 2 ] || all=0-1
perf=0
[ "$last" -gt 1 ] && perf=0-$((last - 1))
start_dbus
qosd_root_init
printf '[Daemon]\nUserRules=no\nEfficientCPUs=%s\n' "$last" >"$QOSD_ROOT/etc/qos/qosd.conf"

APP=$(test_program qos-place-app)
write_rule place-app "$APP" - "bgw*" background "uiw*" user-interactive

allowed() { awk '$1 == "Cpus_allowed_list:" { print $2 }' "/proc/$1/status"; }
allowed_is() { [ "$(allowed "$1")" = "$2" ]; }
wait_allowed() { # tid list message
        wait_for allowed_is "$1" "$2" || fail "$3: Cpus_allowed_list $(allowed "$1"), expected $2"
}

THREADS_BIN=$APP start_threads bgw uiw plain
bg=$(tid_of bgw) ui=$(tid_of uiw) plain=$(tid_of plain)
start_qosd
grep -q "cpus: performance $perf, efficient $last (qosd.conf: EfficientCPUs=)" "$QOSD_LOG" ||
        fail "qosd does not say which CPUs are which: $(grep 'cpus:' "$QOSD_LOG")"
wait_allowed "$bg" "$last" "background thread"
assert_eq "$(allowed "$ui")" "$all" "user-interactive thread: every CPU"
assert_eq "$(allowed "$plain")" "$all" "a thread no rule names: untouched"
assert_contains "$("$QOSCTL" explain "$bg")" "cpus" "explain shows the CPUs"
ok "background on the efficient CPU, the other classes on all"

# A busy background thread runs only there.
"$APP" --busy bgw-spin idle >"$TEST_TMP/hog.out" &
hogp=$!
on_exit "kill $hogp 2>/dev/null"
wait_for grep -qx ready "$TEST_TMP/hog.out"
busy_tid() { grep -lx bgw-spin /proc/"$hogp"/task/*/comm | head -n 1 | cut -d/ -f5; }
wait_for busy_tid || fail "no busy thread in process $hogp"
hog=$(busy_tid)
wait_allowed "$hog" "$last" "busy background thread"
ran=
for _ in $(seq 20); do
        ran+=" $(stat_field "$hog" 39)"
        sleep 0.05
done
for c in $ran; do
        [ "$c" = "$last" ] || fail "the background hog ran on CPU $c (samples:$ran)"
done
kill "$hogp"
ok "a busy background thread ran only on the efficient CPU (20 samples)"

# Someone narrowed it first: qosd intersects, never widens.
taskset -c "$last" "$APP" bgw >"$TEST_TMP/narrow.out" &
on_exit "kill $! 2>/dev/null"
wait_for grep -qx ready "$TEST_TMP/narrow.out"
t=$(awk '$2 == "bgw" { print $1 }' "$TEST_TMP/narrow.out")
wait_for sh -c "[ \"\$(awk '{ print \$41 }' /proc/$t/stat)\" = 5 ]" || fail "narrowed thread not classed"
assert_eq "$(allowed "$t")" "$last" "a thread narrowed to the efficient CPU keeps it"
taskset -c 0 "$APP" bgw >"$TEST_TMP/perf.out" &
on_exit "kill $! 2>/dev/null"
wait_for grep -qx ready "$TEST_TMP/perf.out"
t0=$(awk '$2 == "bgw" { print $1 }' "$TEST_TMP/perf.out")
wait_for sh -c "[ \"\$(awk '{ print \$41 }' /proc/$t0/stat)\" = 5 ]" || fail "thread on CPU 0 not classed"
assert_eq "$(allowed "$t0")" 0 "a thread narrowed to a performance CPU stays there"
wait_for grep -q "thread $t0 (bgw, .*none of the CPUs it may run on is efficient" "$QOSD_LOG" ||
        fail "qosd does not say why it left the thread: $(tail -5 "$QOSD_LOG")"
ok "a taskset-narrowed thread keeps its mask; none efficient: left where it is, and said"

# qosctl run -c background: through qosd, the command is placed too.
"$QOSCTL" run -c background sleep 30 &
sl=$!
on_exit "kill $sl 2>/dev/null"
wait_for grep -qx sleep "/proc/$sl/comm"
wait_allowed "$sl" "$last" "qosctl run -c background"
kill "$sl"
user=qos-t-place
make_user "$user"
runuser -u "$user" -- env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
        "$(user_runnable "$QOSCTL")" run -c background sleep 30 &
wait_for pgrep -u "$user" -x sleep || fail "the user's qosctl run did not start sleep"
us=$(pgrep -u "$user" -x sleep)
on_exit "kill $us 2>/dev/null"
wait_allowed "$us" "$last" "qosctl run -c background as a user"
kill "$us"
ok "qosctl run -c background runs its command on the efficient CPU, for root and for a user"

# SIGKILL leaves the masks; a restart keeps the originals; SIGTERM
# restores every mask, the narrowed ones as they were.
stop_qosd KILL
assert_eq "$(allowed "$bg")" "$last" "the mask stays after SIGKILL"
start_qosd
assert_eq "$(allowed "$bg")" "$last" "recovered, not applied again"
stop_qosd
assert_eq "$(allowed "$bg")" "$all" "background thread restored"
assert_eq "$(allowed "$ui")" "$all" "user-interactive thread as it was"
assert_eq "$(allowed "$t")" "$last" "narrowed thread as it was"
assert_eq "$(allowed "$t0")" 0 "thread on CPU 0 as it was"
ok "SIGKILL and restart keep the originals; SIGTERM restores every mask"

# Without EfficientCPUs= (one kind of CPU here): nothing is placed.
printf '[Daemon]\nUserRules=no\n' >"$QOSD_ROOT/etc/qos/qosd.conf"
start_qosd
wait_for sh -c "[ \"\$(awk '{ print \$41 }' /proc/$bg/stat)\" = 5 ]" || fail "not classed"
assert_eq "$(allowed "$bg")" "$all" "one kind of CPU: background keeps every CPU"
ok "one kind of CPU: nothing placed"
