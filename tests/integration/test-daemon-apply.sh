#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# qosd applies classes: to processes already running at start (every
# thread), at exec of a matched program, to a thread when it is created and
# again when it is renamed (COMM); untouched programs stay at the defaults;
# SIGTERM puts everything back.
source "$(dirname "$0")/lib.sh"
require_root
qosd_root_init

BG=$(test_program qos-app-bg)
OTHER=$(test_program qos-app-other)
write_rule app-bg "$BG" background "render*" user-interactive

bg=$(class_view background)
ui=$(class_view user-interactive)
def=$(class_view utility)
[ "$bg" != "$def" ] && [ "$ui" != "$def" ] || fail "class views do not differ: $bg / $ui / $def"

# Running before qosd starts: the start scan finds it, all threads.
THREADS_BIN=$BG start_threads early-a early-b
early=$THREADS_PID early_b=$(tid_of early-b)
early_before=$(kernel_view "$early")
start_qosd --log-level debug
assert_eq "$(kernel_view "$early")" "$bg" "main thread of a process running before qosd"
assert_eq "$(kernel_view "$early_b")" "$bg" "second thread of a process running before qosd"
ok "processes running at start get their class, every thread"

# Exec of a matched program: the class is there right after exec.
THREADS_BIN=$BG start_threads worker indexer
p=$THREADS_PID
wait_view "$p" "$bg" "exec of a matched program"
assert_eq "$(kernel_view "$(tid_of worker)")" "$bg" "worker thread of an exec'd program"
assert_eq "$(kernel_view "$(tid_of indexer)")" "$bg" "indexer thread of an exec'd program"
ok "exec of a matched program: every thread gets the class"

# A thread created later, then renamed into a thread rule (COMM event).
start_commands "$BG"
t=$(command_tid helper spawn helper)
wait_view "$t" "$bg" "new thread"
ok "a new thread of a matched process gets the process class"
command_tid render-main rename helper render-main >/dev/null
wait_view "$t" "$ui" "renamed thread"
ok "a thread renamed into a [Thread:] rule gets the thread class"
command_tid plain rename render-main plain >/dev/null
wait_view "$t" "$bg" "renamed back"
ok "renamed out of the thread rule: back to the process class"

# Untouched: a program no rule matches, started while qosd runs.
THREADS_BIN=$OTHER start_threads other-a
o=$THREADS_PID
sleep 0.2
assert_eq "$(kernel_view "$o")" "$def" "unmatched program"
assert_eq "$(kernel_view "$(tid_of other-a)")" "$def" "thread of an unmatched program"
ok "untouched programs stay at the defaults"

# SIGTERM: everything qosd changed is back as it was.
stop_qosd TERM
assert_eq "$(kernel_view "$early")" "$early_before" "restored on SIGTERM (main thread)"
assert_eq "$(kernel_view "$early_b")" "$early_before" "restored on SIGTERM (second thread)"
assert_eq "$(kernel_view "$t")" "$def" "restored on SIGTERM (new thread)"
assert_eq "$(kernel_view "$p")" "$def" "restored on SIGTERM (exec'd program)"
[ ! -e "$QOSD_ROOT/run/qos/qosd.state" ] || fail "state file left after a clean restoring exit"
grep -q "restored .* thread(s)" "$QOSD_LOG" || fail "no restore message in the log"
ok "SIGTERM restores the originals"
