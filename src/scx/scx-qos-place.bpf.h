/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_qos: where a task goes when ops.select_cpu found it no idle CPU. A
 * user-class wake-up claims a CPU that runs a lower class and preempts it
 * (claim_cpu_running(), preempt_claimed()); failing that it is queued by
 * vtime (queue_vtime()), and a CPU whose user-class task has overrun its
 * slice is kicked (kick_overrun_cpu()). ops.enqueue in scx_qos.bpf.c picks
 * among these, in the order its top comment gives the reasons for.
 *
 * A header for the same reason as scx-qos-state.bpf.h: one BPF object, its
 * helpers static. Included once, by scx_qos.bpf.c.
 */
#ifndef SCX_QOS_PLACE_BPF_H
#define SCX_QOS_PLACE_BPF_H

#include "scx-qos-state.bpf.h"

/*
 * A CPU of @p's mask that runs a task of class @run (RUN_*), claimed
 * (compare and swap, so two wake-ups never pick the same one); -1 if none.
 * The task's own CPU is tried first, its caches are warm.
 */
static s32 claim_cpu_running(struct task_struct *p, u32 run) {
        s32 first = scx_bpf_task_cpu(p);
        u32 nr = scx_bpf_nr_cpu_ids();
        u32 i;

        if (nr > MAX_CPUS)
                nr = MAX_CPUS;
        bpf_for(i, 0, nr) {
                s32 cpu = ((u32) first + i) % nr;
                u32 *slot = run_slot(cpu);

                if (!slot || *slot != run)
                        continue;
                if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
                        continue;
                if (__sync_val_compare_and_swap(slot, run, RUN_CLAIMED) == run)
                        return cpu;
        }
        return -1;
}

/*
 * On a machine with two kinds of CPU: an idle CPU of @p's mask of the kind
 * its class belongs on, claimed (its idle bit cleared, as
 * scx_bpf_select_cpu_dfl() does, so two wake-ups never pick the same one);
 * @prev first, its caches are warm. Background goes to the efficient CPUs,
 * so the performance ones stay free for the user's work; the user classes
 * go to the performance CPUs. -1 if none is idle, or the machine has one
 * kind, or @cls is utility (the kernel's choice stands).
 */
static s32 claim_idle_of_kind(struct task_struct *p, s32 prev, u32 cls) {
        bool efficient = cls == SCX_QOS_BG;
        u32 nr = scx_bpf_nr_cpu_ids();
        u32 i;

        if (!have_efficient || cls == SCX_QOS_UTIL || prev < 0)
                return -1;
        if (nr > MAX_CPUS)
                nr = MAX_CPUS;
        bpf_for(i, 0, nr) {
                s32 cpu = ((u32) prev + i) % nr;

                if (cpu_is_efficient(cpu) != efficient || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
                        continue;
                if (scx_bpf_test_and_clear_cpu_idle(cpu))
                        return cpu;
        }
        return -1;
}

/*
 * @p goes to the front of claimed @cpu's local DSQ and preempts what runs
 * there. On the CPU that places it, SCX_ENQ_PREEMPT does that at once. On
 * another CPU the kernel moves it later (ops.enqueue cannot lock a second
 * runqueue), and if that CPU is in its own dispatch meanwhile, the
 * preemption can be dropped, and the CPU keeps its task for a whole slice:
 * beside background hogs, one such wake-up in a few waited out a
 * background slice, 8-12 ms. A preempting kick, which takes the CPU's lock
 * after the move, ends that slice whenever it arrives (scx_lavd kicks its
 * victim CPU the same way).
 */
static void preempt_claimed(struct task_struct *p, s32 cpu, u32 cls, u64 enq_flags) {
        scx_bpf_dispatch(p, SCX_DSQ_LOCAL_ON | cpu, slice_of(cls), enq_flags | SCX_ENQ_PREEMPT);
        if (cpu != (s32) bpf_get_smp_processor_id()) {
                stat_inc(SCX_QOS_STAT_PREEMPT_REMOTE);
                scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
        }
}

/*
 * A queued user-class wake-up waits for a slice to end, but slices end at
 * the tick (4 ms at HZ=250), long after a 0.5 ms one is used up. So kick
 * one CPU whose user-class task has overrun its slice: its next dispatch
 * takes HI. This only enforces a slice early.
 */
static bool kick_overrun_cpu(struct task_struct *p, u64 now) {
        u32 nr = scx_bpf_nr_cpu_ids();
        u32 i;

        if (nr > MAX_CPUS)
                nr = MAX_CPUS;
        bpf_for(i, 0, nr) {
                u32 *slot = run_slot(i);
                u64 *started = MEMBER_VPTR(cpu_started, [i & (MAX_CPUS - 1)]);
                u64 slice;
                u32 run;

                if (!slot || !started)
                        continue;
                run = *slot;
                if (run != RUN_CLASS(SCX_QOS_UI) && run != RUN_CLASS(SCX_QOS_UIN))
                        continue;
                /* Constant indices: the verifier loses a computed one's bounds. */
                slice = run == RUN_CLASS(SCX_QOS_UI) ? slice_of(SCX_QOS_UI) : slice_of(SCX_QOS_UIN);
                if (ns_since(now, *started) < slice || !bpf_cpumask_test_cpu(i, p->cpus_ptr))
                        continue;
                scx_bpf_kick_cpu(i, SCX_KICK_PREEMPT);
                return true;
        }
        return false;
}

static void queue_vtime(struct task_struct *p, u32 cls, u64 enq_flags) {
        struct task_ctx *tctx = task_ctx(p);
        u32 dsq = class_dsq(cls);
        u64 *now = MEMBER_VPTR(vtime_now, [dsq]);
        u64 vtime = p->scx.dsq_vtime;
        u64 slice = slice_of(cls);

        if (!now)
                return;
        /* A task that changed queue brings a vtime of another clock:
         * it starts level with the tasks of its new queue. */
        if (!tctx || tctx->vtime_dsq != dsq + 1) {
                vtime = *now;
                if (tctx)
                        tctx->vtime_dsq = dsq + 1;
        }
        /* scx_simple's rule: a task that slept keeps at most one slice of
         * credit. */
        if (vtime_before(vtime, *now - slice))
                vtime = *now - slice;
        p->scx.dsq_vtime = vtime;
        scx_bpf_dispatch_vtime(p, dsq, slice, vtime, enq_flags);
}

#endif
