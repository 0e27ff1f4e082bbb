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

# A state file of an earlier qosd, positional "B" records (eight knob
# fields and the group per side), is still read: the same crash, with the
# records rewritten as that qosd wrote them.
to_positional() {
        awk '
        BEGIN { cls["none"] = 0; cls["background"] = 1; cls["utility"] = 2
                cls["user-initiated"] = 3; cls["user-interactive"] = 4 }
        function side(s,   p, rof, u) {
                p = (s ".policy") in f ? f[s ".policy"] : "0"
                rof = sub(/[|]reset-on-fork$/, "", p)
                u = (s ".uclamp") in f ? f[s ".uclamp"] : "0..1024"
                sub(/[.][.]/, " ", u)
                return p " " f[s ".nice"] + 0 " " f[s ".slice"] + 0 " " rof " " u " " \
                       f[s ".ioprio"] + 0 " " f[s ".timer-slack"] + 0 " " cls[(s ".group") in f ? f[s ".group"] : "none"]
        }
        {
                delete f
                for (i = 2; i <= NF; i++) { eq = index($i, "="); f[substr($i, 1, eq - 1)] = substr($i, eq + 1) }
                if ($1 == "F") print "F " f["tid"] " " f["start"]
                else print "B " f["tid"] " " f["start"] " " cls[f["class"]] " " side("orig") " " side("set")
        }' "$1" >"$TEST_TMP/positional.state"
        cat "$TEST_TMP/positional.state" >"$1" # the same file: its owner and mode stay
}
start_qosd
wait_view "$app" "$bg" "applied again"
stop_qosd KILL
to_positional "$QOSD_ROOT/run/qos/qosd.state"
grep -q "^B $app [0-9]* 1 " "$QOSD_ROOT/run/qos/qosd.state" || fail "no positional record for the app"
! grep -q "^C " "$QOSD_ROOT/run/qos/qosd.state" || fail "named records left"
start_qosd
assert_eq "$(qosd_status Recovered)" 3 "originals recovered from positional records"
assert_eq "$(qosd_status Applied)" 0 "nothing applied again after positional records"
stop_qosd TERM
assert_eq "$(kernel_view "$app")" "$orig" "SIGTERM restores the original read from a positional record"
assert_eq "$(kernel_view "$w2")" "$orig_w2" "... of the thread too"
ok "an earlier qosd's positional state file is recovered from"

# RestoreOnExit=no: classes stay on SIGTERM; a later qosd still knows the originals.
printf '[Daemon]\nUserRules=no\nRestoreOnExit=no\n' >"$QOSD_ROOT/etc/qos/qosd.conf"
start_qosd
stop_qosd TERM
assert_eq "$(kernel_view "$app")" "$bg" "RestoreOnExit=no leaves the class"
start_qosd --restore-on-exit=yes
stop_qosd TERM
assert_eq "$(kernel_view "$app")" "$orig" "a later qosd restores what an earlier one left"
ok "RestoreOnExit=no leaves classes; a later qosd still restores the originals"
