#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Crash recovery: SIGKILL qosd, start it again. It recovers from the state
# file and /proc what it had changed, does not take its own settings for
# the originals (no double apply: nothing is changed again), and a later
# SIGTERM restores the true originals. RestoreOnExit=no leaves classes.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

BG=$(test_program qos-app-bg)
write_rule app-bg "$BG" background
bg=$(class_view background)

# Originals that are not the defaults (nice 4), so that restoring to the
# defaults instead of to the originals would show.
nice -n 4 "$BG" w1 w2 >"$TEST_TMP/app.out" &
app=$!
on_exit "kill $app"
wait_for grep -qx ready "$TEST_TMP/app.out"
orig=$(kernel_view "$app")
w2=$(awk '$2 == "w2" { print $1 }' "$TEST_TMP/app.out")
orig_w2=$(kernel_view "$w2")

start_qosd
wait_view "$app" "$bg" "applied"
wait_view "$w2" "$bg" "applied (thread)"
stop_qosd KILL
assert_eq "$(kernel_view "$app")" "$bg" "classes stay after SIGKILL"
[ -s "$QOSD_ROOT/run/qos/qosd.state" ] || fail "no state file after SIGKILL"
ok "SIGKILL leaves the classes and the state file"

start_qosd
assert_eq "$(qosd_status Recovered)" 3 "originals recovered from the state file"
assert_eq "$(qosd_status Applied)" 0 "nothing applied again after the restart"
assert_eq "$(qosd_status TasksManaged)" 3 "managed after the restart"
"$QOSCTL" explain "$w2" | grep "recovered after a restart" >/dev/null || fail "explain lacks recovery"
ok "restart: state recovered, nothing double-applied"

# Crash twice in a row: still the first originals.
stop_qosd KILL
start_qosd
stop_qosd TERM
assert_eq "$(kernel_view "$app")" "$orig" "SIGTERM restores the true original (main thread)"
assert_eq "$(kernel_view "$w2")" "$orig_w2" "SIGTERM restores the true original (thread)"
ok "after two crashes, SIGTERM restores the true originals"

# RestoreOnExit=no: classes stay on SIGTERM; a later qosd still knows the originals.
printf '[Daemon]\nUserRules=no\nRestoreOnExit=no\n' >"$QOSD_ROOT/etc/qos/qosd.conf"
start_qosd
stop_qosd TERM
assert_eq "$(kernel_view "$app")" "$bg" "RestoreOnExit=no leaves the class"
start_qosd --restore-on-exit=yes
stop_qosd TERM
assert_eq "$(kernel_view "$app")" "$orig" "a later qosd restores what an earlier one left"
ok "RestoreOnExit=no leaves classes; a later qosd still restores the originals"
