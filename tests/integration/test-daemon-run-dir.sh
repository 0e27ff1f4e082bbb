#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosd's runtime directory (ROOT/run/qos, where the crash-recovery records
# live) full, read-only or tampered with. qosd starts and applies classes
# all the same; `qosctl status` says crash recovery is off and why; when
# writing works again it comes back on by itself, with every record.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

RUN="$QOSD_ROOT/run/qos"
STATE="$RUN/qosd.state"
BG=$(test_program qos-rundir-bg)
write_rule rundir-bg "$BG" background
bg=$(class_view background)

recovery() { "$QOSCTL" status | sed -n 's/^CrashRecovery *//p'; }
recovery_is() { # prefix
        case "$(recovery)" in "$1"*) return 0 ;; esac
        return 1
}

# Start the test program; APP is its PID, once it has its class.
start_app() { # label
        THREADS_BIN=$BG start_threads w1
        APP=$THREADS_PID
        wait_view "$APP" "$bg" "$1: the program gets its class"
}
stop_app() {
        kill "$APP"
        wait "$APP" 2>/dev/null || true
}

mkdir -p "$RUN"
# A tiny tmpfs of qosd's own (mode 0755: tmpfs's default 1777 would be refused).
mount -t tmpfs -o size=64k,mode=0755 qos-test-run "$RUN"
on_exit "umount -l '$RUN'"

# 1. Full: qosd starts, applies, says recovery is off; frees space, it is on.
dd if=/dev/zero of="$RUN/filler" bs=4k >/dev/null 2>&1 || true
start_qosd
start_app "full /run"
WAIT_TIMEOUT=30 wait_for recovery_is "off:" || fail "status does not say recovery is off: $(recovery)"
assert_contains "$(recovery)" "No space left on device" "the reason"
grep -q "crash recovery is off" "$QOSD_LOG" || fail "no journal line about recovery being off"
rm -f "$RUN/filler"
WAIT_TIMEOUT=30 wait_for recovery_is "on" || fail "recovery did not come back after space was freed: $(recovery)"
grep -q "^C tid=$APP " "$STATE" || fail "the program's record is not in the state file after recovery came back"
grep -q "crash recovery is on again" "$QOSD_LOG" || fail "no journal line about recovery being on again"
# And it is real: after SIGKILL the next qosd recovers the program.
stop_qosd KILL
start_qosd
status_above Recovered 0 || fail "nothing recovered after SIGKILL"
ok "full /run: classes applied, recovery off and back on by itself, records complete"
stop_app
stop_qosd TERM

# 2. Read-only: the same.
mount -o remount,ro "$RUN"
start_qosd
start_app "read-only /run"
recovery_is "off:" || fail "status does not say recovery is off: $(recovery)"
assert_contains "$(recovery)" "Read-only file system" "the reason"
mount -o remount,rw "$RUN"
WAIT_TIMEOUT=30 wait_for recovery_is "on" || fail "recovery did not come back after remount rw: $(recovery)"
grep -q "^C tid=$APP " "$STATE" || fail "the program's record is not in the state file"
ok "read-only /run: classes applied, recovery off and back on after remount"
stop_app
stop_qosd TERM
umount "$RUN"

# 3. A symbolic link for the state file: neither read nor written through.
echo "precious" >"$TEST_TMP/target"
ln -s "$TEST_TMP/target" "$STATE"
start_qosd
start_app "symlinked state file"
recovery_is "off:" || fail "status does not say recovery is off: $(recovery)"
assert_contains "$(recovery)" "symbolic link" "the reason"
sleep 3 # a retry or two: the link stays refused
[ -L "$STATE" ] || fail "the link was replaced"
assert_eq "$(cat "$TEST_TMP/target")" "precious" "the link's target is untouched"
recovery_is "off:" || fail "recovery came on through a link"
rm "$STATE"
WAIT_TIMEOUT=30 wait_for recovery_is "on" || fail "recovery did not come on once the link was gone"
ok "symlinked state file refused (target untouched), taken up once it is gone"
stop_app
stop_qosd TERM

# 4. A directory another user owns, writable by its group.
make_user qosrundir
chown qosrundir "$RUN"
chmod 0775 "$RUN"
rm -f "$STATE"
start_qosd
start_app "hostile directory"
recovery_is "off:" || fail "status does not say recovery is off: $(recovery)"
assert_contains "$(recovery)" "belongs to uid $(id -u qosrundir)" "the reason"
[ ! -e "$STATE" ] || fail "qosd wrote into a directory another user owns"
chown root "$RUN"
WAIT_TIMEOUT=30 wait_for recovery_is "off: $RUN is writable by its group" ||
        fail "group-writable directory not refused: $(recovery)"
chmod 0755 "$RUN"
WAIT_TIMEOUT=30 wait_for recovery_is "on" || fail "recovery did not come on once the directory was sound"
ok "a directory of another user, or group-writable, is refused and taken up once sound"
stop_app
stop_qosd TERM
