#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A real, unmodified Debian program that names its threads: GStreamer's
# gst-launch-1.0, whose streaming threads are named after element and pad
# ("videotestsrc0:src", "queue0:src") from inside themselves. With the
# preload and a rule for them, every thread has the class of its current
# name whenever it is looked at, from its first appearance in /proc; the
# preload's own record shows each thread got its class in the trampoline,
# before GStreamer's code ran in it. Then the same with qosd: started while
# qosd is stopped, so that qosd finds everything already done when it
# reads its events: it re-applies no knob and calls nothing foreign.
source "$(dirname "$0")/lib.sh"
require_root
GST=$(command -v gst-launch-1.0) || { echo "SKIP: gst-launch-1.0 not installed (gstreamer1.0-tools)"; exit 77; }
GST=$(readlink -f "$GST")
gst_fresh_registry
start_dbus
qosd_root_init

write_rule gst "$GST" user-initiated "videotestsrc*" user-interactive "queue*" background
declare -A view=(
        [user-interactive]=$(class_view user-interactive sched_view)
        [user-initiated]=$(class_view user-initiated sched_view)
        [background]=$(class_view background sched_view)
        [utility]=$(class_view utility sched_view)
)
# Background is SCHED_IDLE with nice 19 and an 8 ms slice, set under
# SCHED_BATCH first (see task-apply.c).
transit_bg="3 $(class_triple background | cut -d' ' -f2-)"
class_of() { # thread name (comm, at most 15 characters)
        case "$1" in
        videotestsrc*) echo user-interactive ;;
        queue*) echo background ;;
        *) echo user-initiated ;;
        esac
}
LOG=$TEST_TMP/preload.log

# A pipeline that runs until killed; ASan's leak report at exit would be
# GStreamer's, not ours.
start_gst() {
        : >"$LOG"
        env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT" "QOS_PRELOAD_DEBUG=$LOG" ASAN_OPTIONS=detect_leaks=0 \
                "$GST" -q videotestsrc is-live=true ! video/x-raw,framerate=50/1 ! queue ! fakesink sync=true \
                >/dev/null 2>"$TEST_TMP/gst.err" &
        GST_PID=$!
        on_exit "kill $GST_PID"
        # Between exec and our constructor only the dynamic loader and
        # other libraries' constructors run: the watch starts when ours
        # has applied the process class (and before any thread exists).
        wait_for grep -q "exec tid=$GST_PID " "$LOG" || fail "the preload did not start in gst-launch-1.0"
}

# Watch the process from its start: every thread, as soon as /proc lists
# it, and again and again for a while, with policy, nice and slice from
# its stat and sched files, taken between two reads of its name. A view
# other than its name's class is accepted only as a change in flight, and
# the thread must then be seen in its class before the watch ends: the
# class of its previous name (a rename is the name first, then the class),
# the step on the way to SCHED_IDLE (two system calls), or, for a thread
# not yet seen in its class, the defaults a reset-on-fork creator hands
# down until the trampoline runs.
watch_threads() { # seconds
        local end=$((SECONDS + $1)) t tid c1 c2 v want
        declare -gA SEEN=() PREV=() PENDING=()
        OBSERVED=0 INFLIGHT=0
        while [ $SECONDS -lt $end ]; do
                for t in /proc/"$GST_PID"/task/*; do
                        tid=${t##*/}
                        read -r c1 <"$t/comm" 2>/dev/null || continue
                        v=$(sched_view "$tid" 2>/dev/null) || continue
                        read -r c2 <"$t/comm" 2>/dev/null || continue
                        [ "$c1" = "$c2" ] || continue
                        want=${view[$(class_of "$c1")]}
                        OBSERVED=$((OBSERVED + 1))
                        SEEN[$tid]=$c1
                        if [ "$v" = "$want" ]; then
                                PREV[$tid]=$v
                                unset "PENDING[$tid]"
                        elif [ "$v" = "${PREV[$tid]:-}" ] || [ "$v" = "$transit_bg" ] ||
                                { [ -z "${PREV[$tid]:-}" ] && [ "$v" = "${view[utility]}" ]; }; then
                                INFLIGHT=$((INFLIGHT + 1))
                                PENDING[$tid]="'$c1' seen as '$v', expected '$want'"
                        else
                                fail "thread $tid '$c1': kernel reports '$v', expected $(class_of "$c1") '$want'"
                        fi
                done
                kill -0 "$GST_PID" 2>/dev/null || fail "gst-launch-1.0 exited: $(cat "$TEST_TMP/gst.err")"
        done
        for tid in "${!PENDING[@]}"; do
                [ -d "/proc/$GST_PID/task/$tid" ] && fail "thread $tid never settled: ${PENDING[$tid]}"
        done
        return 0
}

start_gst
watch_threads 2
names=$(printf '%s\n' "${SEEN[@]}" | sort -u | tr '\n' ' ')
assert_contains "$names" "videotestsrc0:s" "the source's streaming thread was seen"
assert_contains "$names" "queue0:src" "the queue's streaming thread was seen"
ok "${#SEEN[@]} threads ($names), $OBSERVED observations: each had its class ($INFLIGHT caught while it was being applied)"

# The record: the main thread before main(), every other thread in the
# trampoline (its CPU time then: only libc's thread start and ours), and
# the class of its GStreamer name at the rename.
grep -q "exec tid=$GST_PID name=gst-launch-1.0 class=user-initiated: applied" "$LOG" ||
        fail "main thread: $(grep "tid=$GST_PID " "$LOG")"
for tid in "${!SEEN[@]}"; do
        [ "$tid" = "$GST_PID" ] && continue
        # Its first name is its creator's (a pool thread started by
        # queue0:src is called queue0:src too).
        rec=$(grep -Eo " start tid=$tid name=[^ ]+ class=[^:]+: (applied|already)" "$LOG") ||
                fail "thread $tid (${SEEN[$tid]}) has no trampoline record: $(grep "tid=$tid " "$LOG")"
        first=${rec#* name=} first=${first%% *}
        assert_contains "$rec" "class=$(class_of "$first"):" "thread $tid started as $first"
done
for name in videotestsrc0:s queue0:src; do
        grep -Eq "rename tid=[0-9]+ name=$name class=$(class_of "$name"): applied" "$LOG" ||
                fail "no rename record for $name"
done
cpu=$(awk '/ start tid=/ { sub("cpu_ns=", "", $NF); print $NF }' "$LOG" | sort -n | tail -1)
ok "every thread got its class before GStreamer's code ran in it (at most $((cpu / 1000)) us of its CPU time)"
kill "$GST_PID"
wait "$GST_PID" 2>/dev/null || true

# Without the preload the same threads run at the defaults (no qosd here):
# the classes above were the preload's doing.
"$GST" -q videotestsrc is-live=true ! queue ! fakesink >/dev/null 2>&1 &
plain=$!
on_exit "kill $plain"
has_queue() { grep -qx queue0:src /proc/"$plain"/task/*/comm; }
wait_for has_queue || fail "plain gst-launch-1.0 did not start"
for t in /proc/"$plain"/task/*; do
        assert_eq "$(stat_field "${t##*/}" 19)" 0 "thread ${t##*/} without the preload: nice"
done
kill "$plain"
ok "without the preload, no thread has a class"

# qosd and the preload agree. qosd is stopped while gst-launch-1.0 starts;
# when it catches up, every thread already has its class: qosd changes none
# of the per-thread knobs and calls nothing foreign. It may still move the
# threads into their class's cpu group, which the preload leaves to qosd
# (as libqos does: the groups are the system's).
start_qosd
applied0=$(qosd_status Applied) foreign0=$(qosd_status ForeignChanges)
kill -STOP "$QOSD_PID"
on_exit "kill -CONT $QOSD_PID"
start_gst
watch_threads 1
declare -A before=()
for tid in "${!SEEN[@]}"; do
        before[$tid]=$(sched_view "$tid" 2>/dev/null) || unset "before[$tid]"
done
kill -CONT "$QOSD_PID"
managed() { [ "$("$QOSCTL" ps -p "$GST_PID" | grep -c " applied ")" -ge "${#before[@]}" ]; }
wait_for managed || fail "qosd does not manage gst's threads: $("$QOSCTL" ps -p "$GST_PID")"
for tid in "${!before[@]}"; do
        [ -d "/proc/$GST_PID/task/$tid" ] || continue
        assert_eq "$(sched_view "$tid")" "${before[$tid]}" "thread $tid (${SEEN[$tid]}) after qosd caught up"
done
watch_threads 1
assert_eq "$(qosd_status ForeignChanges)" "$foreign0" "threads qosd took for someone else's"
moved=$(($(qosd_status Applied) - applied0))
ok "qosd found every thread in its class: no knob re-applied, nothing foreign ($moved moved into their class's group)"
stop_qosd TERM
