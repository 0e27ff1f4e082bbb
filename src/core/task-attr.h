/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What one thread has now, knob by knob, as the kernel reports it. The same
 * structure describes a target (a class on this kernel) and an original to
 * restore, so applying and restoring are one operation. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/cpu-mask.h"
#include "core/knob.h"
#include "core/qclass.h"

typedef struct TaskAttr {
        int policy;             /* SCHED_OTHER, SCHED_BATCH, SCHED_IDLE (or RT/DL, never changed) */
        int nice;
        uint64_t slice_ns;      /* 0 = the kernel's default slice (no custom slice) */
        bool reset_on_fork;
        int uclamp_min;         /* 0..1024 */
        int uclamp_max;
        int ioprio;             /* raw ioprio value: IOPRIO_VALUE(class, level) */
        uint64_t timer_slack_ns;
        QClass group;           /* the class whose qosd group (group.h) it is in; UNSPECIFIED: none */
        bool group_foreign;     /* in a cgroup another manager owns: seen, never changed, not compared */
        /* Its affinity. Empty: not read, or not to be changed (equal to
         * any). A class's target names all present CPUs or the efficient
         * ones, until task_attr_place() makes it this thread's. */
        CpuMask cpus;
} TaskAttr;

/* What a TaskAttr holds for a knob that was not read (the kernel lacks it,
 * it was not asked for) or not recorded: zero (no custom slice, no I/O
 * class, slack unknown, no group), and no clamp. */
#define TASK_ATTR_NEUTRAL { .uclamp_max = 1024 }

struct qos_sched_attr;
typedef struct KernelCaps KernelCaps;

/* The scheduler part of a TaskAttr (policy, nice, slice, reset-on-fork,
 * uclamp) from what sched_getattr reported; ioprio and timer slack stay at
 * their neutral values. For callers that hold a raw sched_getattr result
 * taken earlier, before the caps could be probed. */
void task_attr_from_sched_attr(const struct qos_sched_attr *sa, const KernelCaps *caps, TaskAttr *ret);

/* Read a thread's attributes. Knobs the kernel lacks (see kernel-caps.h)
 * keep the neutral value. -ESRCH if the thread is gone. */
int task_attr_read(pid_t tid, TaskAttr *ret);

/* The same for the knobs in mask only (the scheduler's always: one system
 * call reads them all); the others keep their neutral values. A caller
 * that changes a few knobs reads no /proc file for the rest. */
int task_attr_read_knobs(pid_t tid, unsigned mask, TaskAttr *ret);

/* Bit mask of knobs on which a and b differ (only knobs in `mask`). */
unsigned task_attr_diff(const TaskAttr *a, const TaskAttr *b, unsigned mask);

/* Make a class's CPUs (want->cpus, from class_target_attr()) this
 * thread's, from the CPUs it had before qosd (orig->cpus), so that qosd
 * never widens what someone else narrowed: all present CPUs become orig's;
 * the efficient ones become those among orig's, or orig's alone when none
 * of them is efficient (*ret_none_efficient set: the thread stays where it
 * may run, and the caller says so). An unknown orig leaves the CPUs
 * alone. */
void task_attr_place(TaskAttr *want, const TaskAttr *orig, const KernelCaps *caps, bool *ret_none_efficient);

/* True for SCHED_FIFO, SCHED_RR, SCHED_DEADLINE: qosd never touches those. */
bool task_attr_is_realtime(const TaskAttr *a);

/* Human-readable value of one knob ("batch", "-4", "0.70ms", "be/2",
 * "qos.background", "autogroup", "foreign"); TASK_ATTR_VALUE_MAX holds
 * any (a group's name has the prefix in it). */
#define TASK_ATTR_VALUE_MAX 96
const char *task_attr_format_knob(const TaskAttr *a, Knob k, char *buf, size_t size);

const char *sched_policy_to_string(int policy);
int sched_policy_from_string(const char *s);
const char *ioprio_format(int ioprio, char *buf, size_t size);
