/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_qos: what the scheduler keeps, per CPU and per task, and the small
 * helpers that read and write it: the loader's knobs (rodata), the queues'
 * clocks and the guards' last runs, cpu_run[] (which class each CPU runs),
 * the per-task context, the counters, and the test hooks.
 *
 * A header, not a .bpf.c of its own: split across two objects (joined by
 * bpftool gen object) these helpers and maps would have to be global, and
 * the verifier checks a global function once, for any arguments, not with
 * each caller's as it does a static one. In one object they stay static
 * and compile as they did. Included once, by scx_qos.bpf.c, after
 * <scx/common.bpf.h>; why the values are what they are is in that file's
 * top comment.
 */
#ifndef SCX_QOS_STATE_BPF_H
#define SCX_QOS_STATE_BPF_H

#include "scx-qos-stats.h"
#include "scx-qos-class.bpf.h"

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
/* The efficient CPUs (E-cores, LITTLE cores: qosd's cpu-kinds), a bitmap;
 * have_efficient is false on a machine with one kind. */
const volatile u64 efficient_cpus[MAX_CPUS / 64];
const volatile bool have_efficient;

static u64 vtime_now[NR_VTIME_DSQS];
static u64 loaded_ns;
static u64 last_bg_ns, last_util_ns;
static u32 cpu_run[MAX_CPUS];
static u64 cpu_started[MAX_CPUS]; /* when its current task started */
static bool guard_pending[MAX_CPUS]; /* this CPU's next task is a guarded one */
/* Two kinds of CPU: when each last started a user-class task, and when
 * background last ran on a performance CPU (keep_bg_off()). */
static u64 cpu_user_ns[MAX_CPUS];
static u64 last_bg_perf_ns;
#define USER_WORK_NS MS(100)

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

static bool cpu_is_efficient(s32 cpu) {
        const volatile u64 *word;

        if (cpu < 0 || cpu >= MAX_CPUS)
                return false;
        /* MEMBER_VPTR: the compiler drops a mask it can prove redundant,
         * and the verifier then cannot bound the index. */
        word = MEMBER_VPTR(efficient_cpus, [(u32) cpu / 64]);
        return word && (*word & (1ULL << ((u32) cpu % 64)));
}

/*
 * Whether performance CPU @cpu leaves queued background alone: it ran the
 * user's work within USER_WORK_NS, and background ran on a performance
 * CPU within bg_guard_ns. The second bound is background's: a task the
 * efficient CPUs cannot take (its mask, or they are all busy) still gets
 * a performance CPU's slice every period.
 */
static bool keep_bg_off(s32 cpu, u64 now) {
        u64 *user = MEMBER_VPTR(cpu_user_ns, [cpu & (MAX_CPUS - 1)]);

        if (!have_efficient || cpu_is_efficient(cpu) || !user)
                return false;
        return ns_since(now, *user) < USER_WORK_NS && ns_since(now, last_bg_perf_ns) < bg_guard_ns;
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

#endif
