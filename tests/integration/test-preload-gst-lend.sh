#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Lending in a real, unmodified Debian program: GStreamer's gst-launch-1.0.
# GStreamer's pad stream locks and task locks are GRecMutex, which GLib
# builds on a recursive pthread_mutex_t (its GMutex is a bare futex, which
# the preload cannot see). Its threads have different classes through
# thread rules, as in test-preload-gst.sh: the application thread
# user-initiated (the process class), the source's streaming thread
# user-interactive, the queues' streaming threads background. At the end
# of the stream the application thread takes every pad's stream lock to
# shut the pipeline down while the queues' threads still hold theirs: a
# higher class waiting on a background holder. Each run is short; over a
# few runs the preload must lend, only upwards, and end every loan, and
# gst-launch must behave as without it (exit 0).
source "$(dirname "$0")/lib.sh"
require_root
GST=$(command -v gst-launch-1.0) || { echo "SKIP: gst-launch-1.0 not installed (gstreamer1.0-tools)"; exit 77; }
GST=$(readlink -f "$GST")
gst_fresh_registry
qosd_root_init
write_rule gst "$GST" user-initiated "videotestsrc*" user-interactive "queue*" background
LOG=$TEST_TMP/preload.log
rank() { # class name -> order
        case "$1" in
        background) echo 1 ;; utility) echo 2 ;; user-initiated) echo 3 ;; user-interactive) echo 4 ;; *) echo 0 ;;
        esac
}

total=0
for run in 1 2 3 4 5 6 7 8; do
        : >"$LOG"
        env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT" "QOS_PRELOAD_DEBUG=$LOG" ASAN_OPTIONS=detect_leaks=0 \
                timeout 60 "$GST" -q videotestsrc num-buffers=25 ! video/x-raw,framerate=50/1 \
                ! queue ! queue ! queue ! queue ! fakesink sync=true >/dev/null 2>"$TEST_TMP/gst.err" ||
                fail "run $run: gst-launch-1.0 failed: $(cat "$TEST_TMP/gst.err")"
        grep -q "lending: on" "$LOG" || fail "run $run: lending is not on: $(cat "$LOG")"
        # Every loan goes up: the holder's class (its last exec/start/
        # rename record) is below the class lent.
        while read -r holder lent; do
                had=$(grep -E "(exec|start|rename) tid=$holder " "$LOG" | tail -n 1 | sed -n 's/.* class=\([a-z-]*\):.*/\1/p')
                [ "$(rank "$had")" -lt "$(rank "$lent")" ] ||
                        fail "run $run: lent $lent to $holder, which had $had"
        done < <(sed -n 's/.*lend tid=[0-9]* to=\([0-9]*\) class=\([a-z-]*\): lent$/\1 \2/p' "$LOG")
        n=$(grep -c "lend tid=.*: lent$" "$LOG" || true)
        # Every loan taken out of the table. Its end may report the
        # re-apply's error (EOPNOTSUPP seen when another loan stays on the
        # same holder); that is logged, and is not a loan left behind.
        [ "$(grep -c "loan end " "$LOG" || true)" = "$n" ] ||
                fail "run $run: $n loan(s) made, not each ended: $(grep -E "lend tid|loan end" "$LOG" | tr '\n' ';')"
        total=$((total + n))
        [ "$total" -lt 3 ] || [ "$run" -lt 3 ] || break
done
[ "$total" -gt 0 ] || fail "no loan in $run runs"
ok "gst-launch-1.0: $total loans in $run runs, each to a lower class, each ended; every run exited 0"
