#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Per-user rules in ~/.config/qos/apps.d: they apply to their owner's
# processes only, the admin's MaxClass caps them, and qosd reads them with
# the user's file-system identity, so a symlink to a file the user cannot
# read gives the user nothing.
source "$(dirname "$0")/lib.sh"
require_root
qosd_root_init
printf '[Daemon]\nUserRules=yes\n' >"$QOSD_ROOT/etc/qos/qosd.conf"

alice=qos-ua$$
bob=qos-ub$$
home=$TEST_TMP/home
for u in "$alice" "$bob"; do
        make_user "$u" "$home"
done
[ "$(id -u "$alice")" -ge 1000 ] || fail "test user got a system uid"

CAPPED=$(test_program qos-u-capped)
MINE=$(test_program qos-u-mine)
SECRET=$(test_program qos-u-secret)

# The admin caps one application and says nothing else about it.
printf '[Match]\nExecutable=%s\n\n[Limits]\nMaxClass=user-initiated\n' "$CAPPED" \
        >"$QOSD_ROOT/etc/qos/apps.d/qos-u-capped.conf"

# Alice's own rules, written as alice. (runuser forks, so the tests look
# at the program's named threads, not at $THREADS_PID.)
udir=$home/$alice/.config/qos/apps.d
runuser -u "$alice" -- mkdir -p "$udir"
runuser -u "$alice" -- sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=user-interactive\n' '$CAPPED' >'$udir/qos-u-capped.conf'"
runuser -u "$alice" -- sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' '$MINE' >'$udir/qos-u-mine.conf'"

# A rule only root can read, and alice's symlink to it.
printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' "$SECRET" >"$TEST_TMP/secret.conf"
chmod 600 "$TEST_TMP/secret.conf"
runuser -u "$alice" -- ln -s "$TEST_TMP/secret.conf" "$udir/qos-u-secret.conf"

bg=$(class_view background)
in=$(class_view user-initiated)
def=$(class_view utility)

start_dbus
start_qosd
assert_contains "$(cat "$QOSD_LOG")" "qos-u-secret.conf" "the unreadable symlink is reported"

AS_USER=$alice THREADS_BIN=$MINE start_threads m
wait_view "$(tid_of m)" "$bg" "alice's own rule applies to alice's process"
ok "a user's rule applies to the user's process"

AS_USER=$bob THREADS_BIN=$MINE start_threads m
sleep 0.3
assert_eq "$(kernel_view "$(tid_of m)")" "$def" "alice's rule does not touch bob's process"
THREADS_BIN=$MINE start_threads m
sleep 0.3
assert_eq "$(kernel_view "$THREADS_PID")" "$def" "alice's rule does not touch root's process"
ok "only the owner's processes"

AS_USER=$alice THREADS_BIN=$CAPPED start_threads c
wait_view "$(tid_of c)" "$in" "alice asks user-interactive, the admin caps at user-initiated"
assert_contains "$("$QOSCTL" explain "$(tid_of c)")" "user-initiated" "explain names the cap"
ok "the admin's MaxClass caps a user's rule"

AS_USER=$alice THREADS_BIN=$SECRET start_threads s
sleep 0.3
assert_eq "$(kernel_view "$(tid_of s)")" "$def" "a symlink to a root-only rule file gives nothing"
ok "user rule files are read with the user's permissions"

# A new rule in the user's directory is picked up without a restart.
runuser -u "$alice" -- sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' '$SECRET' >'$udir/qos-u-secret2.conf'"
AS_USER=$alice THREADS_BIN=$SECRET start_threads s2
wait_view "$(tid_of s2)" "$bg" "a rule added to the user's directory while qosd runs"
ok "changes in a user's directory reload the rules"
stop_qosd

# Without CAP_SETUID and CAP_SETGID (a unit's CapabilityBoundingSet that
# lacks them) qosd cannot read as a user: the user rules are off, and the
# log and `qosctl status` say so instead of loading fewer rules in silence.
QOSD_WRAPPER="setpriv --bounding-set=-setuid,-setgid" start_qosd
assert_contains "$(cat "$QOSD_LOG")" "per-user rules are off" "the log says the user rules are off"
assert_contains "$("$QOSCTL" status)" "CAP_SETUID" "status says why the user rules are off"
AS_USER=$alice THREADS_BIN=$MINE start_threads m
sleep 0.3
assert_eq "$(kernel_view "$(tid_of m)")" "$def" "no user rule applies when they are off"
stop_qosd
QOSD_WRAPPER= start_qosd
assert_eq "$("$QOSCTL" status | awk '$1 == "UserRules" { print $2 }')" "on" "with the capabilities, status says on"
ok "user rules off without CAP_SETUID/CAP_SETGID, and reported"
stop_qosd
