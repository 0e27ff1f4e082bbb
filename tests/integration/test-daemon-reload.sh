#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Reload is atomic: a broken file keeps the last good set (errors reported
# as file:line, over D-Bus and in the log); a removed rule puts its threads
# back to their originals; a new rule applies to running processes; SIGHUP
# and a change in the rule directory (inotify) reload too.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

BG=$(test_program qos-app-bg)
UI=$(test_program qos-app-ui)
rules="$QOSD_ROOT/etc/qos/apps.d"
write_rule app-bg "$BG" background
bg=$(class_view background)
ini=$(class_view user-initiated)
def=$(class_view utility)

THREADS_BIN=$BG start_threads one two
b=$THREADS_PID b2=$(tid_of two)
THREADS_BIN=$UI start_threads ui
u=$THREADS_PID
start_qosd --log-level debug
assert_eq "$(kernel_view "$b2")" "$bg" "before any reload"
assert_eq "$(kernel_view "$u")" "$def" "unmatched before the rule exists"

# A broken file: nothing changes, the errors say where.
write_rule broken "$UI" warp-speed
expect_exit 1 "$QOSCTL" reload
assert_contains "$OUT" "broken.conf:5" "reload error names file:line"
assert_contains "$OUT" "previous rules stay in force" "reload error says the old set stays"
assert_eq "$(qosd_status LastReloadOK)" no "status: last reload failed"
assert_contains "$("$QOSCTL" status)" "broken.conf:5" "status shows the error"
grep -q "broken.conf:5" "$QOSD_LOG" || fail "the log lacks file:line"
assert_eq "$(kernel_view "$b2")" "$bg" "threads keep the last good set"
assert_eq "$(kernel_view "$u")" "$def" "nothing from the broken file applied"
ok "a broken file keeps the last good set and says file:line"

# Fixed: the new rule applies to the running process (SIGHUP this time).
sed -i 's/warp-speed/user-initiated/' "$rules/broken.conf"
kill -HUP "$QOSD_PID"
wait_view "$u" "$ini" "new rule after SIGHUP"
assert_eq "$(qosd_status LastReloadOK)" yes "status after a good reload"
ok "SIGHUP: a new rule applies to running processes"

# Removed by editing the directory: inotify reloads, threads go back.
rm "$rules/app-bg.conf"
wait_view "$b2" "$def" "thread whose rule disappeared"
assert_eq "$(kernel_view "$b")" "$def" "main thread whose rule disappeared"
assert_eq "$(kernel_view "$u")" "$ini" "the other rule still applies"
ok "a removed rule (inotify) puts its threads back"

# A change made while a reload reads the directories is not lost: with
# many files, reading them takes a while after the directory is listed.
# Each round starts a reload and adds a file a little later, at another
# moment of the reload each time; the file must be loaded in the end.
for i in $(seq 1500); do
        printf '[Match]\nExecutable=/nonexistent/filler-%d\n\n[Process]\nClass=background\n' "$i" >"$rules/filler-$i.conf"
done
kill -HUP "$QOSD_PID"
WAIT_TIMEOUT=60 wait_for status_above RulesLoaded 1500 || fail "the filler rules were not loaded"
n=$(qosd_status RulesLoaded)
rules_loaded_are() { [ "$(qosd_status RulesLoaded)" = "$1" ]; }
for delay in 0 0.01 0.02 0.04 0.06 0.08 0.1 0.15 0.2 0.3; do
        kill -HUP "$QOSD_PID"
        sleep "$delay"
        write_rule "late-$delay" "/nonexistent/late-$delay" background
        n=$((n + 1))
        WAIT_TIMEOUT=30 wait_for rules_loaded_are "$n" ||
                fail "a file added ${delay}s after a reload began was never loaded: $(qosd_status RulesLoaded) rules, $n files"
done
rm -f "$rules"/filler-*.conf "$rules"/late-*.conf
ok "a file added while a reload reads the directories is loaded"

stop_qosd TERM
assert_eq "$(kernel_view "$u")" "$def" "restored on exit"
ok "exit restores what the reloaded rules set"
