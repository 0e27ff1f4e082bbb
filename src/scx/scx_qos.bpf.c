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
 */
#include <scx/common.bpf.h>

#include "scx-qos-stats.h"
#include "scx-qos-class.bpf.h"

char _license[] SEC("license") = "GPL";

#define MAX_CPUS 1024 /* power of two: cpu_run[] is indexed with a mask */
#define TASK_COMM_LEN 16

/* cpu_run[]: what a CPU runs; 0, what .bss starts with, is nothing of ours. */
#define RUN_IDLE 0
#define RUN_CLASS(cls) ((cls) + 1)
#define RUN_BG RUN_CLASS(SCX_QOS_BG)
#define RUN_BG_GUARDED 16 /* background run by its guard: not preemptible */
#define RUN_CLAIMED 17    /* a wake-up is on its way to preempt it */

/* Set by the loader before load. */
const volatile u64 bg_guard_ns = MS(100);
const volatile u64 util_guard_ns = MS(300);
const volatile u64 error_after_ns;
const volatile char stall_comm[TASK_COMM_LEN];

static u64 vtime_now[NR_VTIME_DSQS];
static u64 loaded_ns;
static u64 last_bg_ns, last_util_ns;
static u32 cpu_run[MAX_CPUS];
static u64 cpu_started[MAX_CPUS]; /* when its current task started */
static bool guard_pending[MAX_CPUS]; /* this CPU's next task is a guarded one */

UEI_DEFINE(uei);

struct task_ctx {
        u64 started_ns; /* when it last started running, 0 if not yet */
        u64 woken_ns;   /* a user-class wake-up placed then, not yet running; 0: none */
        u32 woken_late; /* the counter to bump if it starts LATE_NS or more later */
        u32 cls;        /* class at its last placement */
        u32 vtime_dsq;  /* 1 + the DSQ whose clock its vtime follows, 0: none */
};

/* A user-class wake-up that waits this long to run is counted late, by the
 * way it was placed: the wake-up tail as the scheduler itself sees it. */
#define LATE_NS MS(1)

struct {
        __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
        __uint(map_flags, BPF_F_NO_PREALLOC);
        __type(key, int);
        __type(value, struct task_ctx);
} task_ctxs SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(key_size, sizeof(u32));
        __uint(value_size, sizeof(u64));
        __uint(max_entries, SCX_QOS_NR_STATS);
} stats SEC(".maps");

static void stat_inc(u32 idx) {
        u64 *cnt = bpf_map_lookup_elem(&stats, &idx);
        if (cnt)
                (*cnt)++;
}

static inline bool vtime_before(u64 a, u64 b) {
        return (s64) (a - b) < 0;
}

/*
 * Time from @then to @now, 0 if @then is later: another CPU may stamp
 * @then after this one read @now (ops.running against ops.dispatch), and
 * the plain difference would wrap to "ages ago".
 */
static inline u64 ns_since(u64 now, u64 then) {
        return vtime_before(then, now) ? now - then : 0;
}

static bool is_stall_task(const struct task_struct *p) {
        if (!stall_comm[0])
                return false;
        /* Unrolled: the verifier takes no variable offset into a task. */
#pragma unroll
        for (int i = 0; i < TASK_COMM_LEN; i++) {
                if (p->comm[i] != stall_comm[i])
                        return false;
                if (!stall_comm[i])
                        break;
        }
        return true;
}

static struct task_ctx *task_ctx(const struct task_struct *p) {
        return bpf_task_storage_get(&task_ctxs, (struct task_struct *) p, NULL, 0);
}

static u32 *run_slot(s32 cpu) {
        if (cpu < 0 || cpu >= MAX_CPUS)
                return NULL;
        return &cpu_run[cpu & (MAX_CPUS - 1)];
}

/* The class at placement is kept so running/stopping agree with the queue. */
static u32 place(struct task_struct *p) {
        struct task_ctx *tctx = task_ctx(p);
        u32 cls = task_class(p);

        if (tctx)
                tctx->cls = cls;
        stat_inc(SCX_QOS_STAT_ENQ_UI + cls);
        return cls;
}

static u32 placed_class(const struct task_struct *p) {
        struct task_ctx *tctx = task_ctx(p);
        return tctx ? tctx->cls : task_class(p);
}

/* A user-class wake-up was placed (@stat), and its wait is timed. */
static void count_wakeup(const struct task_struct *p, u32 stat, u32 late_stat) {
        struct task_ctx *tctx = task_ctx(p);

        stat_inc(stat);
        if (tctx) {
                tctx->woken_ns = bpf_ktime_get_ns();
                tctx->woken_late = late_stat;
        }
}

static void check_error_hook(void) {
        if (error_after_ns && bpf_ktime_get_ns() - loaded_ns >= error_after_ns)
                scx_bpf_error("test: error after %llu ms", error_after_ns / MS(1));
}

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

s32 BPF_STRUCT_OPS(qos_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags) {
        bool is_idle = false;
        s32 cpu;
        u32 cls;

        if (is_stall_task(p))
                return prev_cpu;
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
        return scx_bpf_consume(dsq);
}

void BPF_STRUCT_OPS(qos_dispatch, s32 cpu, struct task_struct *prev) {
        u64 now = bpf_ktime_get_ns();
        u32 prev_cls = SCX_QOS_NR_CLASSES;
        u64 *started = MEMBER_VPTR(cpu_started, [cpu & (MAX_CPUS - 1)]);

        check_error_hook();

        if (guard_consume(DSQ_BG, &last_bg_ns, bg_guard_ns, now)) {
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
        if (prev_cls >= SCX_QOS_BG && scx_bpf_consume(DSQ_BG))
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
