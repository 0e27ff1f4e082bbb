#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The proc connector failing under qosd. The kernel cannot be made to fail
# a netlink read on demand, so this runs qosd-fault-inject: qosd built with
# a test-only switch in its one read of the socket ($QOSD_FAULT_RECV names
# a file holding "ERRNO COUNT": the next COUNT reads fail with ERRNO).
# After the error qosd opens a new socket, rescans, counts it, and a
# process started afterwards gets its class from an event (the periodic
# scan is off). A socket that keeps failing is reopened at a bounded rate.
source "$(dirname "$0")/lib.sh"
require_root
: "${QOSD_FAULT:?QOSD_FAULT must point at qosd-fault-inject}"
start_dbus
qosd_root_init
QOSD=$QOSD_FAULT
export QOSD_FAULT_RECV="$TEST_TMP/recv-fault"

BG=$(test_program qos-cnfault-bg)
write_rule cnfault-bg "$BG" background
bg=$(class_view background)
printf '[Daemon]\nUserRules=no\nScanIntervalSec=0\n' >"$QOSD_ROOT/etc/qos/qosd.conf"

# A process of the rule, started now, gets its class.
new_process_gets_class() { # label
        THREADS_BIN=$BG start_threads w1
        wait_view "$THREADS_PID" "$bg" "$1: a new process gets its class"
        kill "$THREADS_PID"
        wait "$THREADS_PID" 2>/dev/null || true
}

# Events until the injected faults are used up (a fork wakes the socket).
poke_until_gone() {
        local i
        for ((i = 0; i < 500; i++)); do
                [ -e "$QOSD_FAULT_RECV" ] || return 0
                /bin/true
                sleep 0.01
        done
        return 1
}

start_qosd
assert_eq "$(qosd_status ConnectorReopens)" 0 "no reopen at start"
new_process_gets_class "before the fault"

# One read fails with EIO.
rescans=$(qosd_status Rescans)
echo "5 1" >"$QOSD_FAULT_RECV"
poke_until_gone || fail "the injected fault was never read"
wait_for status_above ConnectorReopens 0 || fail "qosd did not reopen the connector"
assert_eq "$(qosd_status ConnectorReopens)" 1 "one reopen counted"
wait_for status_above Rescans "$rescans" || fail "no rescan after the reopen"
grep -q "proc connector: read failed: Input/output error" "$QOSD_LOG" || fail "the error is not in the journal"
grep -q "proc connector: reopened" "$QOSD_LOG" || fail "the reopen is not in the journal"
new_process_gets_class "after the reopen"
ok "a read error: the connector is reopened, counted, rescanned; events flow again"

# A socket that fails on every read: attempts back off instead of spinning
# (one per event without a bound: hundreds here).
before=$(qosd_status ConnectorReopens)
echo "5 1000000" >"$QOSD_FAULT_RECV"
for ((i = 0; i < 300; i++)); do
        /bin/true
        sleep 0.01
done
during=$(( $(qosd_status ConnectorReopens) - before ))
[ "$during" -ge 1 ] || fail "qosd stopped reopening a failing connector"
[ "$during" -le 15 ] || fail "a failing connector was reopened $during times in 300 events"
kill -0 "$QOSD_PID" || fail "qosd exited"
rm -f "$QOSD_FAULT_RECV"
# The next reopen (at most 10 s away, then a rescan) stays.
WAIT_TIMEOUT=30 new_process_gets_class "after a persistent fault ended"
new_process_gets_class "once the connector works again"
ok "a connector that keeps failing: $during reopens in 300 events, then back to normal"
stop_qosd TERM
