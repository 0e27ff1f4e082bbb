#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scheduler=qos on the host. First against the running kernel: where it has
# no sched_ext, qosd says so once, applies its rules as usual and starts
# nothing. Then against a made-up /sys/kernel/sched_ext (--sys-root), so
# that every later step runs on any kernel: qosd leaves another BPF
# scheduler alone, refuses a loader that is missing, not root's, or
# writable by its group or others, and runs a stand-in loader (a script
# that speaks the real one's lines): restarted when killed, stopped on a
# reload to Scheduler=none and at exit, never left behind, and killed with
# qosd (PR_SET_PDEATHSIG). The real loader on a sched_ext kernel is
# test-scheduler-scx.sh's.
source "$(dirname "$0")/lib.sh"
require_root
qosd_root_init
start_dbus

CONF="$QOSD_ROOT/etc/qos/qosd.conf"
conf() { # scheduler path sys-root-note
        printf '[Daemon]\nUserRules=no\nScheduler=%s\nSchedulerPath=%s\nEfficientCPUs=1\n' "$1" "$2" >"$CONF"
}
log_count() { grep -c -- "$1" "$QOSD_LOG" || true; }
# SIGHUP, and wait until the rules are loaded again (the scheduler follows
# in the same step).
reloaded() { [ "$(log_count '^rules: ')" -gt "$1" ]; }
hup() {
        local n
        n=$(log_count '^rules: ')
        kill -HUP "$QOSD_PID"
        wait_for reloaded "$n" || fail "no reload after SIGHUP"
}
wait_log() { # text message
        wait_for grep -q -- "$1" "$QOSD_LOG" || fail "$2: no '$1' in the log"
}

# The stand-in loader: what scx_qos prints, its PID in a file, and the
# exit line and status 0 on SIGTERM. Root's, mode 755, as qosd requires.
# It writes down the signal mask it started with, by builtins alone: dash
# blocks every signal around each fork (for the sleeps below), so a look
# at /proc from outside may land in that window.
LOADER="$TEST_TMP/scx_qos"
cat >"$LOADER" <<EOF
#!/bin/sh
while read -r line; do
        case \$line in SigBlk:*) echo "\$line" >"$TEST_TMP/loader.sigblk" ;; esac
done </proc/\$\$/status
echo "\$*" >"$TEST_TMP/loader.args"
echo \$\$ >"$TEST_TMP/loader.pid"
trap 'echo "scx_qos: exit: unregistered from user space"; exit 0' TERM INT
echo "scx_qos: loaded"
echo "a line on stderr" >&2
while :; do sleep 0.05; done
EOF
chmod 755 "$LOADER"
loader_pid() { cat "$TEST_TMP/loader.pid" 2>/dev/null; }
on_exit 'p=$(loader_pid) && kill -KILL "$p"' # a failed test's last loader
gone() { ! kill -0 "$1" 2>/dev/null; } # reaped too: kill -0 reaches a zombie

APP=$(test_program qos-app-sched)
write_rule app-sched "$APP" background
bg=$(class_view background)

# 1. The running kernel.
if [ -e /sys/kernel/sched_ext/state ]; then
        echo "# this kernel has sched_ext: the no-sched_ext part is skipped (the made-up /sys below still runs)"
else
        conf qos "$LOADER"
        start_qosd --sys-root /
        THREADS_BIN=$APP start_threads w1
        wait_view "$THREADS_PID" "$bg" "a rule with Scheduler=qos on a kernel without sched_ext"
        hup
        sleep 0.3
        assert_eq "$(log_count 'Scheduler=qos: this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT); leaving the scheduler alone')" 1 \
                "the reason is logged once (a reload with the same setting says nothing)"
        [ ! -e "$TEST_TMP/loader.pid" ] || fail "a loader ran on a kernel without sched_ext"
        assert_eq "$(log_count 'Scheduler=qos: started')" 0 "nothing started"
        out=$("$QOSCTL" status)
        assert_contains "$out" "Scheduler          fair (no sched_ext)" "qosctl status"
        stop_qosd
        ok "no sched_ext: said once, rules applied, nothing started, status says fair (no sched_ext)"
fi

# 2. A made-up sched_ext: the kernel check passes, so the path is checked.
SYS="$TEST_TMP/sys"
mkdir -p "$SYS/sys/kernel/sched_ext/root"
echo disabled >"$SYS/sys/kernel/sched_ext/state"
: >"$QOSD_LOG"

cp -p "$LOADER" "$TEST_TMP/gw"
chmod 775 "$TEST_TMP/gw"
conf qos "$TEST_TMP/gw"
start_qosd --sys-root "$SYS"
wait_log "SchedulerPath=$TEST_TMP/gw: writable by its group or others (mode 0775); not running it" "group-writable loader"

cp -p "$LOADER" "$TEST_TMP/nobody"
chown nobody "$TEST_TMP/nobody"
conf qos "$TEST_TMP/nobody"
hup
wait_log "SchedulerPath=$TEST_TMP/nobody: owned by uid $(id -u nobody), not root; not running it" "loader not root's"

conf qos "$TEST_TMP/missing"
hup
wait_log "SchedulerPath=$TEST_TMP/missing: cannot open it: No such file or directory" "missing loader"

# Another scheduler loaded: the good loader is not started either.
echo enabled >"$SYS/sys/kernel/sched_ext/state"
echo rusty >"$SYS/sys/kernel/sched_ext/root/ops"
conf qos "$LOADER"
hup
wait_log 'another BPF scheduler ("rusty") is loaded; leaving it alone' "another scheduler"
sleep 0.3
[ ! -e "$TEST_TMP/loader.pid" ] || fail "a loader ran: a bad path or another scheduler"
ok "refused: group-writable, not root's, missing; another BPF scheduler left alone"

# Idle sched_ext and a good loader: started, its lines logged.
echo disabled >"$SYS/sys/kernel/sched_ext/state"
rm "$SYS/sys/kernel/sched_ext/root/ops"
conf none "$LOADER"
hup
conf qos "$LOADER"
hup
wait_log "the qos scheduler is loaded (scx_qos, pid" "start"
wait_log "scheduler\[[0-9]*\]: a line on stderr" "stderr in the log"
p1=$(loader_pid)
[ -n "$p1" ] && kill -0 "$p1" || fail "no loader running"
assert_eq "$(awk '{print $4}' "/proc/$p1/stat")" "$QOSD_PID" "the loader is qosd's child"
assert_contains "$(cat "$TEST_TMP/loader.sigblk")" "0000000000000000" "the loader starts with no signal blocked"
want_args="--efficient-cpus 1"
[ "$(nproc)" -ge 2 ] || want_args="--efficient-cpus none" # EfficientCPUs=1 names no CPU here
assert_eq "$(cat "$TEST_TMP/loader.args")" "$want_args" "the loader is told qosd's efficient CPUs"
ok "started as qosd's child, no signal blocked, told the efficient CPUs, its output in the log"

# Killed: restarted after a second, the exit logged.
rm -f "$TEST_TMP/loader.pid"
kill -KILL "$p1"
wait_log "scx_qos (pid $p1) was killed by signal 9" "the exit is logged"
wait_for gone "$p1" || fail "the killed loader was not reaped"
WAIT_TIMEOUT=30 wait_for test -s "$TEST_TMP/loader.pid" || fail "not restarted"
p2=$(loader_pid)
[ "$p2" != "$p1" ] || fail "the same loader"
ok "a killed loader is reaped and started again"

# Reload to none: SIGTERM, the exit line, reaped; even by a reload whose
# rules have an error and are not taken.
printf '[Match]\nExecutable=\n[Process]\nClass=fastest\n' >"$QOSD_ROOT/etc/qos/apps.d/broken.conf"
conf none "$LOADER"
kill -HUP "$QOSD_PID"
wait_log "reload: .* error(s); keeping the" "the broken rule file rejects the reload"
rm "$QOSD_ROOT/etc/qos/apps.d/broken.conf"
wait_log "scheduler\[$p2\]: scx_qos: exit: unregistered from user space" "the loader's exit line"
wait_log "scx_qos (pid $p2) stopped: exited with status 0" "stopped"
wait_for gone "$p2" || fail "loader $p2 still there after Scheduler=none"
ok "Scheduler=none stops and reaps the loader, also when the rules' reload fails"

# qosd stops: the loader with it, no process left.
rm -f "$TEST_TMP/loader.pid"
conf qos "$LOADER"
hup
wait_for test -s "$TEST_TMP/loader.pid" || fail "not started again after Scheduler=qos"
p3=$(loader_pid)
stop_qosd
gone "$p3" || fail "loader $p3 left after qosd stopped"
grep -q "scx_qos (pid $p3) stopped: exited with status 0" "$QOSD_LOG" || fail "qosd's exit did not stop the loader"
ok "qosd's exit stops the loader (SIGTERM, exit 0) and leaves no process"

# qosd killed: the loader gets SIGTERM from the kernel (PR_SET_PDEATHSIG).
rm -f "$TEST_TMP/loader.pid"
start_qosd --sys-root "$SYS"
wait_for test -s "$TEST_TMP/loader.pid" || fail "not started"
p4=$(loader_pid)
stop_qosd KILL
dead() { gone "$1" || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
wait_for dead "$p4" || fail "loader $p4 outlived a killed qosd"
ok "a SIGKILLed qosd takes its loader with it"
