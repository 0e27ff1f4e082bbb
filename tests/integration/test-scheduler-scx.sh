#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Scheduler=qos with the real loader on a kernel with sched_ext: qosd
# starts scx_qos and the kernel runs "qos"; a reload to Scheduler=none
# unloads it; a SIGKILLed loader is started again and "qos" comes back;
# qosd's exit unloads it and leaves no loader. The loader is $QOS_SCX_LOADER,
# else the one the kernel build made ($QOS_SOURCE_ROOT/build-kernels/ext/
# current/scx/scx_qos); skips without it, without sched_ext, or while
# another BPF scheduler runs.
source "$(dirname "$0")/lib.sh"
require_root

SCX=/sys/kernel/sched_ext
loader=${QOS_SCX_LOADER:-${QOS_SOURCE_ROOT:-}/build-kernels/ext/current/scx/scx_qos}
if [ ! -e "$SCX/state" ]; then
        echo "SKIP: $TEST_NAME: this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT)"
        exit 77
fi
if [ ! -x "$loader" ]; then
        echo "SKIP: $TEST_NAME: no scx_qos loader at $loader (set QOS_SCX_LOADER)"
        exit 77
fi
if [ "$(cat "$SCX/state")" != disabled ]; then
        echo "SKIP: $TEST_NAME: another BPF scheduler runs ($(cat "$SCX/root/ops" 2>/dev/null || echo ?))"
        exit 77
fi

qosd_root_init
start_dbus
# qosd runs only a root-owned loader that only root may write; a build
# tree need not be that, so the test runs a copy that is.
install -o root -g root -m 755 "$loader" "$TEST_TMP/scx_qos"
CONF="$QOSD_ROOT/etc/qos/qosd.conf"
conf() { printf '[Daemon]\nUserRules=no\nScheduler=%s\nSchedulerPath=%s\n' "$1" "$TEST_TMP/scx_qos" >"$CONF"; }

state_is() { [ "$(cat "$SCX/state")" = "$1" ]; }
ops_is_qos() { state_is enabled && [ "$(cat "$SCX/root/ops" 2>/dev/null)" = qos ]; }
loader_pids() { sed -n 's/.*Scheduler=qos: started .* (pid \([0-9]*\))$/\1/p' "$QOSD_LOG"; }
last_loader() { loader_pids | tail -n1; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# Whatever happens, no loader of this test outlives it.
on_exit 'for p in $(loader_pids); do kill -KILL "$p"; done'
on_exit 'stop_qosd KILL'

conf qos
start_qosd --sys-root /
WAIT_TIMEOUT=20 wait_for ops_is_qos || fail "root/ops is not qos: state $(cat "$SCX/state")"
WAIT_TIMEOUT=30 wait_for grep -q "the qos scheduler is loaded (scx_qos" "$QOSD_LOG" || fail "qosd did not see 'scx_qos: loaded'"
assert_contains "$("$QOSCTL" status)" "Scheduler          sched_ext \"qos\"" "qosctl status"
ok "Scheduler=qos: qosd starts scx_qos, the kernel runs \"qos\""

p1=$(last_loader)
conf none
kill -HUP "$QOSD_PID"
WAIT_TIMEOUT=30 wait_for state_is disabled || fail "Scheduler=none: state $(cat "$SCX/state")"
wait_for gone "$p1" || fail "loader $p1 left after Scheduler=none"
ok "a reload to Scheduler=none unloads it and reaps the loader"

conf qos
kill -HUP "$QOSD_PID"
WAIT_TIMEOUT=20 wait_for ops_is_qos || fail "Scheduler=qos again: state $(cat "$SCX/state")"
p2=$(last_loader)
[ "$p2" != "$p1" ] || fail "no new loader"
kill -KILL "$p2"
wait_for grep -q "scx_qos (pid $p2) was killed by signal 9" "$QOSD_LOG" || fail "the loader's death not logged"
restarted() { [ "$(last_loader)" != "$p2" ] && ops_is_qos; }
WAIT_TIMEOUT=30 wait_for restarted || fail "not started again after SIGKILL: state $(cat "$SCX/state")"
ok "a SIGKILLed loader is started again and \"qos\" comes back"

p3=$(last_loader)
stop_qosd
WAIT_TIMEOUT=30 wait_for state_is disabled || fail "state after qosd stopped: $(cat "$SCX/state")"
gone "$p3" || fail "loader $p3 left after qosd stopped"
ok "qosd's exit unloads the scheduler and leaves no loader"
