/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_qos: which class a task is in, and what each class gets (its queue
 * and its slice). Included once, by scx_qos.bpf.c.
 */
#ifndef SCX_QOS_CLASS_BPF_H
#define SCX_QOS_CLASS_BPF_H

#include "scx-qos-stats.h"

#define MS(x) ((u64) (x) * 1000000ULL)
#define US(x) ((u64) (x) * 1000ULL)

#define SCHED_IDLE 5
#define NICE_0_PRIO 120

enum {
        DSQ_HI,
        DSQ_UTIL,
        DSQ_BG,
        DSQ_STALL, /* --test-stall: never consumed */
        NR_VTIME_DSQS = DSQ_STALL,
};

/* Why these values: the top comment of scx_qos.bpf.c. */
static const u64 class_slice[SCX_QOS_NR_CLASSES] = {
        [SCX_QOS_UI] = US(500),
        [SCX_QOS_UIN] = MS(1),
        [SCX_QOS_UTIL] = MS(3),
        [SCX_QOS_BG] = MS(8),
};

/*
 * qosd's class table read backwards, with room either side of its values so
 * that a nice or a slice set by hand lands in the class it is nearest to.
 * The slice counts only when it was set (se.custom_slice, 6.12's
 * sched_attr.sched_runtime for fair tasks): otherwise se.slice is the base
 * slice, which says nothing about the task.
 */
static u32 task_class(const struct task_struct *p) {
        int nice = p->static_prio - NICE_0_PRIO;
        u64 slice = 0;

        if (p->policy == SCHED_IDLE || nice >= 10)
                return SCX_QOS_BG;
        if (bpf_core_field_exists(p->se.custom_slice) && p->se.custom_slice)
                slice = p->se.slice;
        if (nice <= -10 || (slice && slice <= US(600)))
                return SCX_QOS_UI;
        if (nice < 0 || (slice && slice <= US(1200)))
                return SCX_QOS_UIN;
        return SCX_QOS_UTIL;
}

static u32 class_dsq(u32 cls) {
        switch (cls) {
        case SCX_QOS_UI:
        case SCX_QOS_UIN:
                return DSQ_HI;
        case SCX_QOS_UTIL:
                return DSQ_UTIL;
        default:
                return DSQ_BG;
        }
}

static u64 slice_of(u32 cls) {
        return cls < SCX_QOS_NR_CLASSES ? class_slice[cls] : MS(3);
}

#endif
