#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Soak: SOAK_PROCESSES short-lived processes and SOAK_RENAMES thread
# renames through one running qosd, after a warm-up a tenth that size.
# Rules match part of the load, so qosd applies, restores and forgets
# classes all the way through:
#   49.5%  forks of a matched program (user-initiated, reset-on-fork, so
#          every child is acted on), 10 of which exec a matched survivor;
#   49.5%  forks of a program no rule matches;
#   1%     exec'd jobs of a matched program (user-initiated), each a new
#          process record; a job costs ~50 forks' time, so no more of them
#          (and not background: SCHED_IDLE jobs crawl on a busy machine);
#   and threads that rename themselves through a user-interactive name, a
#   background one and a name no rule has (qosd restores the thread).
# Afterwards no event may be unanswered (LossesPending and EventQueueBytes
# are 0, and every live matched thread has its class), and qosd's fds and
# RSS must be what they were after the warm-up. The integration suite
# runs 20,000 processes and 10,000 renames; `make soak` (meson's "soak"
# suite) 1,000,000 and 100,000. Ends with a table of the run.
source "$(dirname "$0")/lib.sh"
require_root
: "${QOS_RENAME_STORM:?}" "${QOS_JOB_STORM:?}" "${QOS_CLASS_CHECK:?}"
start_dbus
qosd_root_init

N=${SOAK_PROCESSES:-20000}
R=${SOAK_RENAMES:-10000}
# RSS is counted in 4 KiB pages and the heap does not shrink page by page:
# glibc keeps up to M_TRIM_THRESHOLD (128 KiB) of freed memory at the top
# of the heap, and the pid tables may double once more if the measured run
# reaches a higher peak of live tasks than the warm-up (64 KiB for 4,096
# slots). A leak of one allocation (32 bytes at least) per process or per
# rename costs 20,000 x 32 B = 625 KiB or 10,000 x 32 B = 312 KiB already
# at the integration suite's size, above this slack.
RSS_SLACK_KB=256
SURVIVORS=10
RENAME_THREADS=8
RENAME_PACE_US=1000 # per thread: ~8,000 renames/s, handled rather than lost

STORM="$QOSD_BIN/qos-soak-storm"
PLAIN="$QOSD_BIN/qos-soak-plain"
JOB="$QOSD_BIN/qos-soak-job"
RENAMER="$QOSD_BIN/qos-soak-renamer"
cp "$QOS_FORK_STORM" "$STORM"
cp "$QOS_FORK_STORM" "$PLAIN"
cp "$QOS_CLASS_CHECK" "$JOB"
cp "$QOS_RENAME_STORM" "$RENAMER"
SURV=$(test_program qos-soak-survivor)
write_rule soak-storm "$STORM" user-initiated
write_rule soak-survivor "$SURV" user-initiated "keeper" user-interactive
write_rule soak-job "$JOB" user-initiated
write_rule soak-renamer "$RENAMER" - "soak-ui*" user-interactive "soak-bg*" background
initiated=$(class_view user-initiated)
interactive=$(class_view user-interactive)
background=$(class_view background)
job_triple=$(class_triple user-initiated)

start_qosd

# One run of the load, waited for to its end; the survivors, the storm
# processes and the renamer's threads stay until stop_load. Only stop_load
# kills them, and it forgets their PIDs: after a million forks the PID of a
# process gone long ago belongs to someone else.
PIDS=()
on_exit stop_load
run_load() { # processes renames tag
        local jobs=$(($1 / 100)) forks out=$TEST_TMP/$3 p
        forks=$((($1 - jobs) / 2))
        jobs=$(($1 - 2 * forks))
        "$STORM" "$forks" "$SURVIVORS" "$SURV" keeper >"$out.storm" &
        PIDS+=($!)
        "$PLAIN" "$forks" >"$out.plain" &
        PIDS+=($!)
        "$RENAMER" "$2" "$RENAME_THREADS" "$RENAME_PACE_US" soak-ui soak-bg soak-plain >"$out.renamer" &
        RENAMER_PID=$!
        PIDS+=($!)
        "$QOS_JOB_STORM" "$jobs" 8 0 "$job_triple" "$JOB" >"$out.jobs" || fail "the job storm failed"
        for p in storm plain renamer; do
                WAIT_TIMEOUT=3600 wait_for grep -qx done "$out.$p" || fail "the $p load did not finish"
        done
        STORM_PID=${PIDS[0]}
}

stop_load() {
        local p
        for p in "${PIDS[@]}"; do
                pkill -KILL -P "$p" || true
                kill -KILL "$p" 2>/dev/null || true
                wait "$p" 2>/dev/null || true
        done
        PIDS=()
}

# Nothing left to answer: every loss covered by a rescan, the queue read.
answered() {
        [ "$(qosd_status LossesPending)" = 0 ] && [ "$(qosd_status EventQueueBytes)" = 0 ]
}

# Every live task of the matched programs has its class, from /proc.
audit() {
        local t tid want plain n=0 bad=0 s
        plain=$(kernel_view "$RENAMER_PID")
        for t in /proc/"$STORM_PID"/task/* /proc/"$RENAMER_PID"/task/*; do
                tid=${t##*/}
                case "$(cat "$t/comm")" in
                soak-ui) want=$interactive ;;
                soak-bg) want=$background ;;
                qos-soak-storm) want=$initiated ;;
                *) want=$plain ;; # soak-plain, and the renamer's main thread
                esac
                n=$((n + 1))
                view_is "$tid" "$want" || bad=$((bad + 1))
        done
        for s in $(awk '$1 == "survivor" { print $2 }' "$TEST_TMP/load.storm"); do
                for t in /proc/"$s"/task/*; do
                        tid=${t##*/}
                        [ "$(cat "$t/comm")" = keeper ] && want=$interactive || want=$initiated
                        n=$((n + 1))
                        view_is "$tid" "$want" || bad=$((bad + 1))
                done
        done
        AUDITED=$n WRONG=$bad
        [ "$bad" = 0 ]
}

# After a reload, which gives the heap's free pages back (malloc_trim):
# what a storm's peak left free in the heap counts otherwise, and under
# load that peak (processes alive at once) is far above the warm-up's.
# A leak is memory in use, which no trim gives back.
rss_kb() {
        local n
        n=$(qosd_status Reloads)
        "$QOSCTL" reload >/dev/null
        wait_for status_above Reloads "$n" || fail "qosd did not reload"
        awk '$1 == "VmRSS:" { print $2 }' "/proc/$QOSD_PID/status"
}
# qosd opens descriptors for a moment while it works (a pidfd, a /proc
# file for an event from anywhere on the machine), so one listing can
# catch one in flight. A leak stays: keep the smallest of a few listings,
# and what its descriptors point at, for the message if the counts differ.
fd_count() { # file to keep the listing in
        local i n best=
        for i in 1 2 3 4 5; do
                n=$(find "/proc/$QOSD_PID/fd" -mindepth 1 -printf '%f -> %l\n' 2>/dev/null | sort -n || true)
                if [ -z "$best" ] || [ "$(wc -l <<<"$n")" -lt "$(wc -l <<<"$best")" ]; then
                        best=$n
                fi
                sleep 0.1
        done
        printf '%s\n' "$best" >"$1"
        wc -l <"$1"
}

# Warm-up: the same load, a tenth of the size, so that every table and
# pool qosd keeps has reached its working size before the measurement.
run_load $((N / 10)) $((R / 10)) warmup
WAIT_TIMEOUT=60 wait_for answered || fail "events unanswered after the warm-up"
stop_load
WAIT_TIMEOUT=60 wait_for answered || fail "events unanswered after the warm-up ended"
rss0=$(rss_kb) fds0=$(fd_count "$TEST_TMP/fds.warmup")
events0=$(qosd_status EventsSeen)

start=$(date +%s.%N)
run_load "$N" "$R" load
WAIT_TIMEOUT=120 wait_for answered || fail "events unanswered after the load: LossesPending $(qosd_status LossesPending), EventQueueBytes $(qosd_status EventQueueBytes)"
end=$(date +%s.%N)
WAIT_TIMEOUT=30 wait_for audit || fail "$WRONG of $AUDITED live matched tasks without their class"
[ "$AUDITED" -ge $((SURVIVORS * 2 + RENAME_THREADS + 2)) ] || fail "the audit saw only $AUDITED tasks"
ok "no event unanswered: all $AUDITED live matched tasks have their class"

stop_load
WAIT_TIMEOUT=60 wait_for answered || fail "events unanswered after the load ended"
pending=$(qosd_status LossesPending) queued=$(qosd_status EventQueueBytes)
rss1=$(rss_kb) fds1=$(fd_count "$TEST_TMP/fds.end")
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f s", b - a }')

echo "# $(cat "$TEST_TMP/load.jobs")"
echo "# events $(($(qosd_status EventsSeen) - events0)) in the measured run; in all: lost $(qosd_status EventsLost)," \
        "sequence gaps $(qosd_status SequenceGaps), rescans $(qosd_status Rescans), applied $(qosd_status Applied)," \
        "restored $(qosd_status Restored), tasks managed now $(qosd_status TasksManaged)"
echo
echo "| processes | renames | wall time | RSS after warm-up | RSS at end | fds after warm-up | fds at end | unanswered events |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf "| %'d | %'d | %s | %'d KiB | %'d KiB | %d | %d | %d |\n" "$N" "$R" "$wall" "$rss0" "$rss1" "$fds0" "$fds1" \
        $((pending + queued + WRONG))
echo

[ "$fds1" = "$fds0" ] ||
        fail "qosd's open fds: $fds0 after the warm-up, $fds1 after the load:
$(diff "$TEST_TMP/fds.warmup" "$TEST_TMP/fds.end")"
ok "fds: $fds0 after the warm-up, $fds1 at the end"
if qosd_has_asan; then
        # ASan keeps freed memory in quarantine, so RSS says nothing here;
        # LeakSanitizer checks at qosd's exit (stop_qosd) instead.
        ok "RSS not compared under ASan ($rss0 KiB, then $rss1 KiB)"
else
        [ "$rss1" -le $((rss0 + RSS_SLACK_KB)) ] ||
                fail "qosd's RSS grew from $rss0 KiB to $rss1 KiB (slack $RSS_SLACK_KB KiB)"
        ok "RSS: $rss0 KiB after the warm-up, $rss1 KiB at the end (slack $RSS_SLACK_KB KiB)"
fi
stop_qosd
