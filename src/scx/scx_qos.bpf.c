/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_qos: a sched_ext scheduler that knows qosd's four classes.
 *
 * The class of a task is read from what qosd (or libqos, or an administrator
 * with chrt/renice) already set on it, so every way of applying a class keeps
 * working and the scheduler needs no channel to qosd (task_class()). The
 * class table (src/core/class-table.c): user-interactive is nice -20 with a
 * 0.5 ms custom slice, user-initiated nice -5 with 1 ms, utility nice 0 with
 * the default slice, background SCHED_IDLE at nice 19 with 8 ms.
 *
 * Queues (one DSQ per row, dispatch takes them top to bottom):
 *   HI    user-interactive and user-initiated, vtime ordered by weight, so a
 *         nice -20 thread gets ~28x the CPU of a nice -5 one when both spin.
 *   UTIL  utility, vtime ordered by weight: scx_simple's fair scheduling.
 *   BG    background, vtime ordered; run only when HI and UTIL are empty,
 *         or by the background guard.
 *
 * Wake-up of a user-interactive or user-initiated task: an idle CPU first
 * (scx_bpf_select_cpu_dfl), else a CPU of its mask that runs a background
 * task, which is preempted (SCX_DSQ_LOCAL_ON | cpu with SCX_ENQ_PREEMPT,
 * and a preempting kick when it is not the placing CPU: preempt_claimed());
 * else one that runs utility, preempted the same way (EEVDF lets a wake-up
 * with a shorter slice preempt a longer one; without this a queued wake-up
 * waited for utility's slice to end at the tick, and the tail beside 4
 * utility hogs was longer than EEVDF's); else HI, taken at the next slice
 * end of any CPU, and a CPU whose user-class task has overrun its slice is
 * kicked to end it now (kick_overrun_cpu()). A utility wake-up also takes
 * a background CPU, as the fair class lets any wake-up preempt a
 * SCHED_IDLE task. Which CPU runs which class is tracked in cpu_run[],
 * written in ops.running and ops.stopping: the idea of scx_lavd's per-CPU
 * context, which it reads to pick a victim CPU to kick.
 *
 * Two kinds of CPU (efficient_cpus, which the loader fills from qosd's
 * cpu-kinds: E-cores, LITTLE cores): a background wake-up takes an idle
 * efficient CPU first and a user-class one an idle performance CPU first
 * (claim_idle_of_kind()); a background task queued again (its slice
 * ended, it was preempted) goes to an idle efficient CPU or waits, and
 * wakes no performance CPU; a performance CPU that ran user work in the
 * last 100 ms takes queued background at most once per bg_guard_ns
 * (keep_bg_off()); background's guard falls to an efficient CPU.
 * So background stays off the performance CPUs while they have user work,
 * and uses them when nothing else wants them. (qosd's cpus knob may
 * also confine background to the efficient CPUs: then its mask does.)
 *
 * Slices: 0.5 ms and 1 ms for the two user classes (qosd's own values, so a
 * spinning user-interactive thread hands the CPU back every 0.5 ms to
 * whatever queued behind it), 3 ms for utility (EEVDF's base slice scaled
 * for a few CPUs: the longest a queued user-class wake-up waits), 8 ms for
 * background (qosd's; preemptible anyway). When nothing else is queued a
 * task keeps its CPU with a fresh slice (ops.dispatch refills prev, as
 * scx_bpfland does), so short slices cost no switches on an idle machine.
 *
 * Guards, so no class is starved forever:
 *   background: if BG is non-empty and no background task ran for
 *     bg_guard_ns (100 ms by default, --bg-guard-ms), the next dispatch
 *     takes BG first, and that task is not preemptible by wake-ups for its
 *     slice. Background as a whole thus gets at least its slice every
 *     bg_guard_ns: 8 ms per 100 ms, 8% of one CPU, under any load.
 *   utility: the same with util_guard_ns (300 ms by default,
 *     --util-guard-ms, looser: it is only a backstop against a runaway
 *     user-interactive hog): at least 3 ms per 300 ms, ~1% of one CPU,
 *     about what the fair class gives nice 0 beside a nice -20 hog.
 *
 * Test hooks (rodata, off by default): stall_comm holds back every task of
 * that comm, so sched_ext's watchdog must eject the scheduler after
 * timeout_ms; error_after_ns calls scx_bpf_error(). Both prove that the
 * machine returns to the fair class.
 *
 * Built against 6.12's API (scx_bpf_dispatch, scx_bpf_consume); the
 * skeleton of ops is scx_simple's (tools/sched_ext/scx_simple.bpf.c).
 *
 * This file holds the ops. The rest is one object with it, in headers by
 * job: the classes' queues and slices (scx-qos-class.bpf.h), the state
 * per CPU and per task with its helpers (scx-qos-state.bpf.h), and where a
 * wake-up without an idle CPU goes (scx-qos-place.bpf.h).
 */
#include <scx/common.bpf.h>

#include "scx-qos-stats.h"
#include "scx-qos-class.bpf.h"

char _license[] SEC("license") = "GPL";

#include "scx-qos-state.bpf.h"
#include "scx-qos-place.bpf.h"

s32 BPF_STRUCT_OPS(qos_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags) {
        bool is_idle = false;
        s32 cpu;
        u32 cls;

        if (is_stall_task(p))
                return prev_cpu;
        cpu = have_efficient ? claim_idle_of_kind(p, prev_cpu, task_class(p)) : -1;
        if (cpu >= 0) {
                cls = place(p);
                if (cls <= SCX_QOS_UIN) {
                        stat_inc(SCX_QOS_STAT_UI_PERFORMANCE);
                        count_wakeup(p, SCX_QOS_STAT_IDLE_UI, SCX_QOS_STAT_LATE_IDLE_UI);
                } else
                        stat_inc(SCX_QOS_STAT_BG_EFFICIENT);
                scx_bpf_dispatch(p, SCX_DSQ_LOCAL, slice_of(cls), 0);
                return cpu;
        }
        cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);
        if (is_idle) {
                cls = place(p);
                if (cls <= SCX_QOS_UIN)
                        count_wakeup(p, SCX_QOS_STAT_IDLE_UI, SCX_QOS_STAT_LATE_IDLE_UI);
                scx_bpf_dispatch(p, SCX_DSQ_LOCAL, slice_of(cls), 0);
        }
        return cpu;
}

void BPF_STRUCT_OPS(qos_enqueue, struct task_struct *p, u64 enq_flags) {
        bool wakeup = enq_flags & SCX_ENQ_WAKEUP;
        u32 cls;
        s32 cpu;

        if (is_stall_task(p)) {
                stat_inc(SCX_QOS_STAT_STALLED);
                scx_bpf_dispatch(p, DSQ_STALL, SCX_SLICE_DFL, enq_flags);
                return;
        }
        cls = place(p);

        /*
         * A per-CPU kthread can run nowhere else and usually has work
         * others wait for: straight to its CPU (scx_bpfland does the same).
         */
        if ((p->flags & PF_KTHREAD) && p->nr_cpus_allowed == 1) {
                scx_bpf_dispatch(p, SCX_DSQ_LOCAL, slice_of(cls), enq_flags);
                return;
        }

        if (cls <= SCX_QOS_UTIL && !is_migration_disabled(p)) {
                /* An enqueue without select_cpu (a preempted or re-queued
                 * task) may still find an idle CPU. */
                if (cls <= SCX_QOS_UIN) {
                        cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
                        if (cpu >= 0) {
                                if (wakeup)
                                        count_wakeup(p, SCX_QOS_STAT_IDLE_UI, SCX_QOS_STAT_LATE_IDLE_UI);
                                scx_bpf_dispatch(p, SCX_DSQ_LOCAL_ON | cpu, slice_of(cls), enq_flags);
                                scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
                                return;
                        }
                }
                if (cls <= SCX_QOS_UIN || wakeup) {
                        cpu = claim_cpu_running(p, RUN_BG);
                        if (cpu >= 0) {
                                if (cls > SCX_QOS_UIN)
                                        stat_inc(SCX_QOS_STAT_PREEMPT_BG_UTIL);
                                else if (wakeup)
                                        count_wakeup(p, SCX_QOS_STAT_PREEMPT_BG, SCX_QOS_STAT_LATE_PREEMPT_BG);
                                else
                                        stat_inc(SCX_QOS_STAT_PREEMPT_BG);
                                preempt_claimed(p, cpu, cls, enq_flags);
                                return;
                        }
                }
                /* Utility's long slice is the next to give way, as EEVDF
                 * lets a wake-up with a shorter slice preempt it. */
                if (cls <= SCX_QOS_UIN && wakeup) {
                        cpu = claim_cpu_running(p, RUN_CLASS(SCX_QOS_UTIL));
                        if (cpu >= 0) {
                                count_wakeup(p, SCX_QOS_STAT_PREEMPT_UTIL, SCX_QOS_STAT_LATE_PREEMPT_UTIL);
                                preempt_claimed(p, cpu, cls, enq_flags);
                                return;
                        }
                }
        }
        /*
         * Background on a hybrid machine: to an idle efficient CPU if there
         * is one, also when it comes back at its slice's end; else it
         * waits, and no performance CPU is woken for it (one takes it when
         * it has nothing of its own). Kicking any idle CPU instead moved
         * the background hogs onto the performance CPUs a slice at a time.
         */
        if (cls == SCX_QOS_BG && have_efficient) {
                cpu = claim_idle_of_kind(p, scx_bpf_task_cpu(p), cls);
                if (cpu >= 0) {
                        stat_inc(SCX_QOS_STAT_BG_EFFICIENT);
                        scx_bpf_dispatch(p, SCX_DSQ_LOCAL_ON | cpu, slice_of(cls), enq_flags);
                        scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
                        return;
                }
                queue_vtime(p, cls, enq_flags);
                return;
        }

        queue_vtime(p, cls, enq_flags);

        if (cls <= SCX_QOS_UIN && wakeup) {
                count_wakeup(p, SCX_QOS_STAT_QUEUED_UI, SCX_QOS_STAT_LATE_QUEUED_UI);
                if (kick_overrun_cpu(p, bpf_ktime_get_ns())) {
                        stat_inc(SCX_QOS_STAT_KICK_UI);
                        return;
                }
        }

        /* A CPU that went idle sleeps until kicked: wake one for this task. */
        cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
        if (cpu >= 0)
                scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
}

/* Take one task of @dsq if its guard says it waited too long. */
static bool guard_consume(u32 dsq, u64 *last, u64 guard_ns, u64 now) {
        u64 seen = *last;

        if (!guard_ns || ns_since(now, seen) < guard_ns || scx_bpf_dsq_nr_queued(dsq) <= 0)
                return false;
        /* One CPU per period takes the guard. */
        if (__sync_val_compare_and_swap(last, seen, now) != seen)
                return false;
        if (scx_bpf_consume(dsq))
                return true;
        /* Nothing there this CPU may run (the tasks' masks): the period
         * is not used up, another CPU may take it. */
        __sync_val_compare_and_swap(last, now, seen);
        return false;
}

void BPF_STRUCT_OPS(qos_dispatch, s32 cpu, struct task_struct *prev) {
        u64 now = bpf_ktime_get_ns();
        u32 prev_cls = SCX_QOS_NR_CLASSES;
        u64 *started = MEMBER_VPTR(cpu_started, [cpu & (MAX_CPUS - 1)]);

        check_error_hook();

        /* Background's guard falls to an efficient CPU first: a
         * performance CPU takes it only after twice the period, when no
         * efficient one could (a background task kept off them). */
        if (guard_consume(DSQ_BG, &last_bg_ns,
                          have_efficient && !cpu_is_efficient(cpu) ? 2 * bg_guard_ns : bg_guard_ns, now)) {
                bool *pending = MEMBER_VPTR(guard_pending, [cpu & (MAX_CPUS - 1)]);
                if (pending)
                        *pending = true;
                stat_inc(SCX_QOS_STAT_GUARD_BG);
                return;
        }
        if (guard_consume(DSQ_UTIL, &last_util_ns, util_guard_ns, now)) {
                stat_inc(SCX_QOS_STAT_GUARD_UTIL);
                return;
        }

        /*
         * @prev still runnable (its slice ran out) competes with the queues:
         * a queue of its own class or higher goes first (so tasks of one
         * class take turns), a lower one waits, else a spinning
         * user-interactive task would hand every other slice to utility.
         */
        if (prev && (prev->scx.flags & SCX_TASK_QUEUED) && !is_stall_task(prev))
                prev_cls = placed_class(prev);

        if (scx_bpf_consume(DSQ_HI))
                return;
        if (prev_cls >= SCX_QOS_UTIL && scx_bpf_consume(DSQ_UTIL))
                return;
        if (prev_cls >= SCX_QOS_BG && !keep_bg_off(cpu, now) && scx_bpf_consume(DSQ_BG))
                return;

        /* Nothing above it queued: @prev keeps the CPU for another slice. */
        if (prev_cls < SCX_QOS_NR_CLASSES) {
                prev->scx.slice = slice_of(prev_cls);
                /* A fresh slice: kick_overrun_cpu() counts from here. */
                if (started)
                        *started = now;
                if (prev_cls == SCX_QOS_BG)
                        last_bg_ns = now;
                else if (prev_cls == SCX_QOS_UTIL)
                        last_util_ns = now;
        }
}

void BPF_STRUCT_OPS(qos_tick, struct task_struct *p) {
        check_error_hook();
}

void BPF_STRUCT_OPS(qos_running, struct task_struct *p) {
        struct task_ctx *tctx = task_ctx(p);
        s32 cpu = scx_bpf_task_cpu(p);
        u32 cls = tctx ? tctx->cls : task_class(p);
        u32 dsq = class_dsq(cls);
        u64 now = bpf_ktime_get_ns();
        bool *pending = MEMBER_VPTR(guard_pending, [cpu & (MAX_CPUS - 1)]);
        u32 *slot = run_slot(cpu);
        u64 *vnow = MEMBER_VPTR(vtime_now, [dsq]);
        u64 *started = MEMBER_VPTR(cpu_started, [cpu & (MAX_CPUS - 1)]);

        stat_inc(SCX_QOS_STAT_DISPATCH_UI + cls);
        if (started)
                *started = now;
        if (tctx) {
                tctx->started_ns = now;
                if (tctx->woken_ns && now - tctx->woken_ns >= LATE_NS)
                        stat_inc(tctx->woken_late);
                tctx->woken_ns = 0;
        }
        if (slot)
                *slot = cls == SCX_QOS_BG && pending && *pending ? RUN_BG_GUARDED : RUN_CLASS(cls);
        if (pending)
                *pending = false;
        if (cls == SCX_QOS_BG)
                last_bg_ns = now;
        else if (cls == SCX_QOS_UTIL)
                last_util_ns = now;
        if (have_efficient && !cpu_is_efficient(cpu)) {
                u64 *user = MEMBER_VPTR(cpu_user_ns, [cpu & (MAX_CPUS - 1)]);
                if (cls <= SCX_QOS_UIN && user)
                        *user = now;
                else if (cls == SCX_QOS_BG)
                        last_bg_perf_ns = now;
        }

        /* scx_simple: the queue's clock follows the tasks that run (racy,
         * and any error is small and temporary). */
        if (vnow && tctx && tctx->vtime_dsq == dsq + 1 && vtime_before(*vnow, p->scx.dsq_vtime))
                *vnow = p->scx.dsq_vtime;
}

void BPF_STRUCT_OPS(qos_stopping, struct task_struct *p, bool runnable) {
        struct task_ctx *tctx = task_ctx(p);
        u32 *slot = run_slot(scx_bpf_task_cpu(p));
        u64 now = bpf_ktime_get_ns();
        u64 used;

        if (slot)
                *slot = RUN_IDLE;
        if (!tctx || !tctx->started_ns)
                return;
        if (tctx->cls == SCX_QOS_BG)
                last_bg_ns = now;
        /*
         * Charge the time it really ran, weighted (scx_simple charges the
         * slice used; slices differ per class here, so measure instead).
         */
        used = now - tctx->started_ns;
        p->scx.dsq_vtime += used * 100 / p->scx.weight;
}

/* A higher class (RT, deadline) took the CPU: what waits on it goes back to
 * ops.enqueue to find another (scx_bpfland's cpu_release). */
void BPF_STRUCT_OPS(qos_cpu_release, s32 cpu, struct scx_cpu_release_args *args) {
        scx_bpf_reenqueue_local();
}

void BPF_STRUCT_OPS(qos_enable, struct task_struct *p) {
        p->scx.dsq_vtime = vtime_now[DSQ_UTIL];
}

s32 BPF_STRUCT_OPS(qos_init_task, struct task_struct *p, struct scx_init_task_args *args) {
        if (!bpf_task_storage_get(&task_ctxs, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE))
                return -ENOMEM;
        return 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(qos_init) {
        s32 r;

        loaded_ns = bpf_ktime_get_ns();
        last_bg_ns = loaded_ns;
        last_util_ns = loaded_ns;
        r = scx_bpf_create_dsq(DSQ_HI, -1);
        if (!r)
                r = scx_bpf_create_dsq(DSQ_UTIL, -1);
        if (!r)
                r = scx_bpf_create_dsq(DSQ_BG, -1);
        if (!r)
                r = scx_bpf_create_dsq(DSQ_STALL, -1);
        return r;
}

void BPF_STRUCT_OPS(qos_exit, struct scx_exit_info *ei) {
        UEI_RECORD(uei, ei);
}

SCX_OPS_DEFINE(qos_ops,
               .select_cpu = (void *) qos_select_cpu,
               .enqueue = (void *) qos_enqueue,
               .dispatch = (void *) qos_dispatch,
               .tick = (void *) qos_tick,
               .running = (void *) qos_running,
               .stopping = (void *) qos_stopping,
               .cpu_release = (void *) qos_cpu_release,
               .enable = (void *) qos_enable,
               .init_task = (void *) qos_init_task,
               .init = (void *) qos_init,
               .exit = (void *) qos_exit,
               .timeout_ms = 5000,
               .name = "qos");
