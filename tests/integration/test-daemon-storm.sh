#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fork storm: 20,000 short-lived processes of a matched program (user-
# initiated: reset-on-fork, so qosd must act on every child), 20 of which
# exec another matched program and stay, against a deliberately small
# receive buffer, with qosd stopped for the first part so the queue must
# overflow. ENOBUFS is counted, a rescan follows, and an audit of /proc then
# finds every live matched task with the right class.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

STORM="$QOSD_BIN/qos-storm"
cp "$QOS_FORK_STORM" "$STORM"
SURV=$(test_program qos-survivor)
write_rule storm "$STORM" user-initiated
write_rule survivor "$SURV" user-initiated "keeper" user-interactive
initiated=$(class_view user-initiated)
interactive=$(class_view user-interactive)

start_qosd --receive-buffer 4096
lost0=$(qosd_status EventsLost) # the shared machine may overflow 4 KiB already
rescans0=$(qosd_status Rescans)

kill -STOP "$QOSD_PID"
on_exit "kill -CONT $QOSD_PID"
start=$(date +%s.%N)
"$STORM" 20000 20 "$SURV" keeper >"$TEST_TMP/storm.out" &
storm=$!
on_exit "pkill -KILL -P $storm; kill -KILL $storm"
sleep 0.5
kill -CONT "$QOSD_PID"
WAIT_TIMEOUT=60 wait_for grep -qx done "$TEST_TMP/storm.out" || fail "the storm did not finish"
end=$(date +%s.%N)
survivors=$(grep -c "^survivor " "$TEST_TMP/storm.out")
assert_eq "$survivors" 20 "survivors started"
ok "20,000 processes in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"

lost=$(qosd_status EventsLost)
[ "$lost" -gt "$lost0" ] || fail "no ENOBUFS counted with a 4 KiB buffer and a stopped daemon"
WAIT_TIMEOUT=30 wait_for status_above Rescans "$rescans0" || fail "no rescan after the loss"
ok "ENOBUFS counted ($lost) and followed by a rescan"

# The audit: every live task of a matched program, straight from /proc.
audit() {
        local d exe t tid want n=0 bad=0
        for d in /proc/[0-9]*; do
                exe=$(readlink "$d/exe" 2>/dev/null) || continue
                [ "$exe" = "$SURV" ] || [ "$exe" = "$STORM" ] || continue
                for t in "$d"/task/*; do
                        tid=${t##*/}
                        case "$exe:$(cat "$t/comm" 2>/dev/null)" in
                        "$SURV:keeper") want=$interactive ;;
                        "$SURV:"*) want=$initiated ;;
                        *) want=$(kernel_view "$storm") ;;
                        esac
                        n=$((n + 1))
                        view_is "$tid" "$want" || bad=$((bad + 1))
                done
        done
        AUDITED=$n
        [ "$bad" = 0 ]
}
WAIT_TIMEOUT=30 wait_for audit || { audit; fail "audit: tasks with the wrong class remain"; }
audit
[ "$AUDITED" -ge 41 ] || fail "audit saw only $AUDITED tasks"
assert_eq "$(kernel_view "$storm")" "$initiated" "the storm process itself"
ok "audit: all $AUDITED live matched tasks have their class"
echo "# events $(qosd_status EventsSeen), lost $lost, sequence gaps $(qosd_status SequenceGaps), rescans $(qosd_status Rescans)"
