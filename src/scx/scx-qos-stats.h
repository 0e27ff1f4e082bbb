/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counters scx_qos keeps, shared by the scheduler (scx_qos.bpf.c, which
 * counts into a per-CPU array) and its loader (scx_qos.c, which sums the
 * CPUs and prints them). One table: index, and the key the stats line uses.
 */
#ifndef SCX_QOS_STATS_H
#define SCX_QOS_STATS_H

#define SCX_QOS_STATS(X)                                                       \
        X(ENQ_UI, "enq_ui")               /* placements of user-interactive */ \
        X(ENQ_UIN, "enq_uin")             /* ... user-initiated */             \
        X(ENQ_UTIL, "enq_util")           /* ... utility */                    \
        X(ENQ_BG, "enq_bg")               /* ... background */                 \
        X(IDLE_UI, "idle_ui")             /* UI/UIN wake-up put on an idle CPU */ \
        X(PREEMPT_BG, "preempt_bg")       /* UI/UIN wake-up preempted background */ \
        X(PREEMPT_UTIL, "preempt_util")   /* ... else preempted utility */     \
        X(QUEUED_UI, "queued_ui")         /* UI/UIN wake-up found none of those */ \
        X(KICK_UI, "kick_ui")             /* ... and cut short a user task past its slice */ \
        X(LATE_IDLE_UI, "late_idle_ui")   /* idle_ui wake-ups that ran LATE_NS or more later */ \
        X(LATE_PREEMPT_BG, "late_preempt_bg") /* ... preempt_bg ones */       \
        X(LATE_PREEMPT_UTIL, "late_preempt_util") /* ... preempt_util ones */ \
        X(LATE_QUEUED_UI, "late_queued_ui") /* ... queued_ui ones */           \
        X(PREEMPT_BG_UTIL, "preempt_bg_util") /* utility wake-up preempted background */ \
        X(PREEMPT_REMOTE, "preempt_remote") /* preemptions of another CPU than the placing one */ \
        X(GUARD_BG, "guard_bg")           /* background run by its guard */    \
        X(GUARD_UTIL, "guard_util")       /* utility run by its guard */       \
        X(DISPATCH_UI, "dispatch_ui")     /* a user-interactive task started */ \
        X(DISPATCH_UIN, "dispatch_uin")   /* ... user-initiated */             \
        X(DISPATCH_UTIL, "dispatch_util") /* ... utility */                    \
        X(DISPATCH_BG, "dispatch_bg")     /* ... background */                 \
        X(BG_EFFICIENT, "bg_efficient")   /* background task put on an idle efficient CPU */ \
        X(UI_PERFORMANCE, "ui_performance") /* UI/UIN wake-up put on an idle performance CPU */ \
        X(STALLED, "test_stalled")        /* tasks held back by --test-stall */

#define SCX_QOS_STAT_INDEX(id, key) SCX_QOS_STAT_##id,
enum scx_qos_stat {
        SCX_QOS_STATS(SCX_QOS_STAT_INDEX)
        SCX_QOS_NR_STATS
};
#undef SCX_QOS_STAT_INDEX

/* The classes, highest first (qosd's QClass, src/core/qclass.h, counts the
 * other way and has an "unspecified" 0 that the scheduler never sees). */
enum scx_qos_class {
        SCX_QOS_UI,
        SCX_QOS_UIN,
        SCX_QOS_UTIL,
        SCX_QOS_BG,
        SCX_QOS_NR_CLASSES
};

#endif
