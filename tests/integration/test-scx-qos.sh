#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# scx_qos on a kernel with sched_ext (the matrix's "ext" rows): it loads
# and unloads; tasks of every class run under it; a user-interactive
# wake-up goes to an idle CPU when there is one, else preempts a
# background task rather than a utility one, and a utility one only when
# no CPU runs background; with two kinds of CPU, background wakes on an
# efficient one and user-interactive on a performance one; a background
# hog beside four
# utility hogs keeps a share and has no long stall; and a SIGKILL of the
# loader, an error exit and a stall caught by sched_ext's watchdog all
# give the machine back to the fair class with every task still running.
#
# Counts, not timings: placement is read from the CPU each wake-up woke on
# (sched_getcpu) and from the scheduler's own counters, so the emulated
# CPUs of the VM cannot make it pass or fail.
. "$(dirname "$0")/lib.sh"
require_root

: "${QOS_SCX_PROBE:?QOS_SCX_PROBE must point at qos-scx-probe}"
skip() { echo "SKIP: $TEST_NAME: $*"; exit 77; }
state_file=/sys/kernel/sched_ext/state
[ -r $state_file ] || skip "this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT)"
loader=${QOS_SCX_LOADER:-$QOS_SOURCE_ROOT/build-kernels/ext/current/scx/scx_qos}
[ -x "$loader" ] || skip "no scx_qos at $loader (make kernel-ext builds it)"
[ "$(cat $state_file)" = disabled ] || skip "another BPF scheduler is loaded ($(cat /sys/kernel/sched_ext/root/ops 2>/dev/null))"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"

work=$(mktemp -d /tmp/qos-scx.XXXXXX)
on_exit "rm -rf '$work'"
scx_pid= scx_runs=0
on_exit 'stop_scx >/dev/null 2>&1'
probes=()
on_exit 'kill -KILL "${probes[@]}" 2>/dev/null'

state() { cat $state_file; }
ops() { cat /sys/kernel/sched_ext/root/ops 2>/dev/null; }
state_is() { [ "$(state)" = "$1" ]; }

loaded_or_exited() { grep -q '^scx_qos: loaded' "$scx_log" || ! kill -0 "$scx_pid" 2>/dev/null; }
# Start scx_qos with ARGS; returns once it says it is loaded.
start_scx() { # args...
        scx_log=$work/scx.$((++scx_runs)).log
        "$loader" --stats 1 "$@" >"$scx_log" 2>&1 &
        scx_pid=$!
        WAIT_TIMEOUT=120 wait_for loaded_or_exited
        grep -q '^scx_qos: loaded' "$scx_log" || fail "scx_qos did not load: $(tail -n 5 "$scx_log")"
        assert_eq "$(state) $(ops)" "enabled qos" "sched_ext state once loaded"
}

# SIGTERM, and the loader's exit status in scx_rc.
stop_scx() {
        [ -n "$scx_pid" ] || return 0
        kill -TERM "$scx_pid" 2>/dev/null
        scx_rc=0
        wait "$scx_pid" || scx_rc=$?
        scx_pid=
}

# Wait for a loader that is to exit on its own (the kernel ejected it).
wait_scx_exit() { # seconds
        local i
        for ((i = 0; i < $1 * 10; i++)); do
                kill -0 "$scx_pid" 2>/dev/null || break
                sleep 0.1
        done
        kill -0 "$scx_pid" 2>/dev/null && fail "scx_qos still running after $1 s: $(tail -n 3 "$scx_log")"
        scx_rc=0
        wait "$scx_pid" || scx_rc=$?
        scx_pid=
}

# A counter from the loader's last stats line.
counter() { # key
        grep '^scx_qos: stats ' "$scx_log" | tail -n 1 | tr ' ' '\n' |
                awk -F= -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}

# A probe in the background, its output in $work/NAME.
probe() { # name class args...
        local name=$1
        shift
        "$QOS_SCX_PROBE" "$@" >"$work/$name" 2>&1 &
        probes+=($!)
}
field() { # name key: a number from a probe's output
        tr ' ' '\n' <"$work/$1" | awk -v k="$2" 'prev == k { print; exit } { prev = $0 }'
}
wait_probes() {
        local p
        for p in "${probes[@]}"; do wait "$p" || fail "a probe failed: $(cat "$work"/* | tail -n 5)"; done
        probes=()
}
# 300 user-interactive wake-ups 5 ms apart into $work/NAME, beside the
# probes already started; then the loader's next stats line.
wake_beside() { # name
        sleep 0.5
        "$QOS_SCX_PROBE" user-interactive wake 5000 300 >"$work/$1" || fail "wake probe failed"
        wait_probes
        sleep 1.5
}

# --- load and unload
start_scx
stop_scx
assert_eq "$scx_rc" 0 "scx_qos's exit status after SIGTERM"
grep -q '^scx_qos: exit:' "$scx_log" || fail "no exit line: $(tail -n 3 "$scx_log")"
wait_for state_is disabled || fail "state after unload: $(state)"
ok "loads (ops qos) and unloads on SIGTERM"

# --- every class runs
start_scx
for c in user-interactive user-initiated utility background; do
        probe "hog-$c" "$c" hog 4
done
wait_probes
for c in user-interactive user-initiated utility background; do
        units=$(field "hog-$c" units)
        [ "${units:-0}" -gt 0 ] || fail "$c hog did no work: $(cat "$work/hog-$c")"
done
sleep 1.5 # one more stats line, after the hogs
for k in enq_ui enq_uin enq_util enq_bg dispatch_bg; do
        [ "$(counter $k)" -gt 0 ] || fail "counter $k is 0: $(grep stats "$scx_log" | tail -n 1)"
done
stop_scx
ok "hogs of all four classes ran; each class was queued and background dispatched"

# --- a user-interactive wake-up with a CPU idle goes there
start_scx
probe bg background hog 6 --cpu 0
wake_beside wake-idle
on_idle=$(field wake-idle cpu1)
[ "$on_idle" -ge 240 ] || fail "woke on the idle CPU $on_idle times of 300: $(cat "$work/wake-idle")"
idle_ui=$(counter idle_ui)
[ "$idle_ui" -ge 240 ] || fail "idle_ui counted $idle_ui of 300 wake-ups"
stop_scx
ok "with CPU 1 idle, $on_idle of 300 wake-ups woke there (idle_ui $idle_ui)"

# --- with no CPU idle: the background task is preempted, the utility one is not
start_scx
probe bg background hog 6 --cpu 0
probe util utility hog 6 --cpu 1
wake_beside wake-busy
on_bg=$(field wake-busy cpu0) on_util=$(field wake-busy cpu1)
[ "$on_bg" -ge 240 ] || fail "woke on the background hog's CPU $on_bg times of 300: $(cat "$work/wake-busy")"
preempt_bg=$(counter preempt_bg)
[ "$preempt_bg" -ge 150 ] || fail "preempt_bg counted $preempt_bg of 300 wake-ups"
stop_scx
ok "both CPUs busy: $on_bg of 300 wake-ups took the background hog's CPU, $on_util the utility hog's (preempt_bg $preempt_bg)"

# --- with only utility running: utility's long slice gives way at once
start_scx
probe util-0 utility hog 6 --cpu 0
probe util-1 utility hog 6 --cpu 1
wake_beside wake-util
preempt_util=$(counter preempt_util) queued=$(counter queued_ui)
[ "$preempt_util" -ge 240 ] || fail "preempt_util counted $preempt_util of 300 wake-ups (queued_ui $queued)"
stop_scx
ok "both CPUs running utility: $preempt_util of 300 wake-ups preempted it (queued_ui $queued)"

# --- starvation guard: background beside four utility hogs
start_scx
"$QOS_SCX_PROBE" background hog 2 >"$work/bg-alone" || fail "background hog alone failed"
alone=$(field bg-alone units)
probe bg-starved background hog 10
for i in 1 2 3 4; do probe "util-$i" utility hog 10; done
wait_probes
sleep 1.5
starved=$(field bg-starved units) gap=$(field bg-starved max_gap_ms)
guard=$(counter guard_bg)
stop_scx
# Per second, against its own speed alone; the guard is meant to give it a
# few percent of a CPU (scx_qos(8)), EEVDF's SCHED_IDLE gave it 0.15%
# with stalls of 3.7 s on this class table.
share=$(awk -v s="$starved" -v a="$alone" 'BEGIN { printf "%.1f", 100 * (s / 10) / (a / 2) }')
awk -v x="$share" 'BEGIN { exit !(x >= 1.0) }' || fail "background kept ${share}% of its speed alone ($starved units in 10 s, $alone in 2 s alone)"
awk -v g="$gap" 'BEGIN { exit !(g < 1000) }' || fail "background's longest stall ${gap} ms"
[ "$guard" -gt 0 ] || fail "guard_bg is 0"
ok "background beside 4 utility hogs kept ${share}% of its speed, longest stall ${gap} ms (guard_bg $guard)"

# --- two kinds of CPU: with CPU 1 named efficient, a background wake-up
# that last ran on CPU 0 wakes on CPU 1, a user-interactive one that last
# ran on CPU 1 wakes on CPU 0. With all CPUs alike the scheduler keeps a
# wake-up on its idle CPU: the same background probe, for comparison.
start_scx --efficient-cpus none
grep -q '^scx_qos: cpus: all alike' "$scx_log" || fail "no 'cpus: all alike' line: $(head -n 3 "$scx_log")"
"$QOS_SCX_PROBE" background wake 5000 300 --start-cpu 0 >"$work/bg-alike" || fail "wake probe failed"
stop_scx
start_scx --efficient-cpus 1
assert_contains "$(grep '^scx_qos: cpus:' "$scx_log")" "performance 0, efficient 1 (--efficient-cpus)" "the loader's cpus line"
"$QOS_SCX_PROBE" background wake 5000 300 --start-cpu 0 >"$work/bg-split" || fail "wake probe failed"
"$QOS_SCX_PROBE" user-interactive wake 5000 300 --start-cpu 1 >"$work/ui-split" || fail "wake probe failed"
sleep 1.5
on_efficient=$(field bg-split cpu1) on_performance=$(field ui-split cpu0)
bg_efficient=$(counter bg_efficient) ui_performance=$(counter ui_performance)
stop_scx
[ "$on_efficient" -ge 240 ] || fail "background woke on the efficient CPU $on_efficient times of 300: $(cat "$work/bg-split")"
[ "$on_performance" -ge 240 ] || fail "user-interactive woke on the performance CPU $on_performance times of 300: $(cat "$work/ui-split")"
[ "$bg_efficient" -ge 240 ] && [ "$ui_performance" -ge 240 ] ||
        fail "counters: bg_efficient $bg_efficient, ui_performance $ui_performance"
ok "CPU 1 efficient: background woke there $on_efficient times of 300, user-interactive on CPU 0 $on_performance (all alike: background stayed on CPU 0 $(field bg-alike cpu0) times)"

# Background that only a performance CPU may run, beside the user's work
# there, is not starved by the split: the guard still gives it slices.
start_scx --efficient-cpus 1
probe pinned-bg background hog 6 --cpu 0
probe pinned-ui user-interactive hog 6 --cpu 0
wait_probes
sleep 1.5
pinned_units=$(field pinned-bg units) pinned_gap=$(field pinned-bg max_gap_ms)
stop_scx
[ "${pinned_units:-0}" -gt 0 ] || fail "background pinned to the performance CPU did no work: $(cat "$work/pinned-bg")"
awk -v g="$pinned_gap" 'BEGIN { exit !(g < 1000) }' || fail "its longest stall: ${pinned_gap} ms"
ok "background pinned to the performance CPU beside a user-interactive hog: $pinned_units units, longest stall ${pinned_gap} ms"

rc=0
out=$("$loader" --efficient-cpus 7-9 2>&1) || rc=$?
assert_eq "$rc" 2 "exit status for an efficient list of no CPU here"
assert_contains "$out" "cannot load: --efficient-cpus 7-9" "says which option"
wait_for state_is disabled || fail "state after the refused load: $(state)"
ok "an --efficient-cpus list naming no CPU of the machine is refused"

# --- SIGKILL of the loader: back to the fair class, the hog runs on
start_scx
probe survivor utility hog 6
sleep 1
kill -KILL "$scx_pid"
wait "$scx_pid" 2>/dev/null || true
scx_pid=
WAIT_TIMEOUT=20 wait_for state_is disabled || fail "state after SIGKILL: $(state)"
wait_probes
[ "$(field survivor units)" -gt 0 ] || fail "the hog did no work across the SIGKILL"
ok "SIGKILL of the loader: sched_ext disabled, the hog ran on"

# --- an error exit
start_scx --test-error-after-ms 1000
probe err-hog utility hog 4
wait_scx_exit 60
assert_eq "$scx_rc" 1 "scx_qos's exit status after an error"
grep -q '^scx_qos: exit:' "$scx_log" || fail "no exit line after the error: $(tail -n 3 "$scx_log")"
WAIT_TIMEOUT=20 wait_for state_is disabled || fail "state after the error: $(state)"
wait_probes
[ "$(field err-hog units)" -gt 0 ] || fail "the hog did no work across the error exit"
ok "error exit: $(grep '^scx_qos: exit:' "$scx_log" | head -n 1 | cut -c1-100); the hog ran on"

# --- a stall: the watchdog ejects the scheduler and the stalled task runs
start_scx --test-stall qos-stallee --timeout-ms 2000
probe stallee utility hog 8 --comm qos-stallee
wait_scx_exit 60
assert_eq "$scx_rc" 1 "scx_qos's exit status after the watchdog"
grep -qi 'stall' "$scx_log" || fail "the exit does not name the stall: $(grep exit: "$scx_log")"
WAIT_TIMEOUT=20 wait_for state_is disabled || fail "state after the stall: $(state)"
wait_probes
[ "$(field stallee units)" -gt 0 ] || fail "the stalled task never ran"
ok "stall: $(grep '^scx_qos: exit:' "$scx_log" | head -n 1 | cut -c1-100); the stalled task ran afterwards"
