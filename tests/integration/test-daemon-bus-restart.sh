#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The bus under qosd: restarted (SIGTERM, then SIGKILL with the socket
# left behind) and, at start, not there at all. qosd keeps giving new
# processes their classes meanwhile, and answers on the new bus by itself:
# no restart of qosd, no hang.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

BG=$(test_program qos-bus-bg)
write_rule bus-bg "$BG" background
bg=$(class_view background)
# Only events give a new process its class here, not the periodic scan.
printf '[Daemon]\nUserRules=no\nScanIntervalSec=0\n' >"$QOSD_ROOT/etc/qos/qosd.conf"

status_works() { "$QOSCTL" status >/dev/null 2>&1; }

# A process of the rule, started now, gets its class.
new_process_gets_class() { # label
        THREADS_BIN=$BG start_threads w1
        wait_view "$THREADS_PID" "$bg" "$1: a new process gets its class"
        kill "$THREADS_PID"
        wait "$THREADS_PID" 2>/dev/null || true
}

start_qosd
assert_eq "$(qosd_status BusConnections)" 1 "one connection at start"

# 1. The bus stops cleanly (dbus-daemon removes its socket) and comes back.
kill -TERM "$DBUS_PID"
wait "$DBUS_PID" 2>/dev/null || true
wait_for grep -q "lost the bus" "$QOSD_LOG" || fail "qosd did not notice the bus going"
status_works() { "$QOSCTL" status >/dev/null 2>&1; }
new_process_gets_class "bus stopped"
kill -0 "$QOSD_PID" || fail "qosd exited when the bus went"
start_dbus
WAIT_TIMEOUT=30 wait_for status_works || fail "qosd did not come back on the new bus"
assert_eq "$(qosd_status BusConnections)" 2 "second connection counted"
"$QOSCTL" ps >/dev/null || fail "qosctl ps on the new bus"
ok "bus stopped and started: classes kept applying, qosd answers on the new bus"

# 2. SIGKILL: the socket stays behind (connections are refused) until the
#    new dbus-daemon replaces it.
kill -KILL "$DBUS_PID"
wait "$DBUS_PID" 2>/dev/null || true
[ -S "$TEST_TMP/dbus/socket" ] || fail "expected the killed bus's socket to stay"
new_process_gets_class "bus killed"
start_dbus
WAIT_TIMEOUT=30 wait_for status_works || fail "qosd did not come back after the bus was killed"
assert_eq "$(qosd_status BusConnections)" 3 "third connection counted"
ok "bus killed and restarted: qosd answers on the new bus"
stop_qosd TERM

# 3. No bus when qosd starts: it starts, applies rules, and takes its name
#    when the bus appears.
kill -TERM "$DBUS_PID"
wait "$DBUS_PID" 2>/dev/null || true
[ ! -e "$TEST_TMP/dbus/socket" ] || fail "the bus's socket is still there"
start_qosd
grep -q "no bus at" "$QOSD_LOG" || fail "qosd did not say that there is no bus"
new_process_gets_class "no bus at start"
start_dbus
WAIT_TIMEOUT=30 wait_for status_works || fail "qosd did not take its name when the bus appeared"
assert_eq "$(qosd_status BusConnections)" 1 "first connection counted"
new_process_gets_class "after the bus appeared"
ok "started without a bus: rules applied, name taken when the bus appeared"
stop_qosd TERM
