/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/kernel-caps.h"
#include "core/knob-table.h"
#include "core/macro.h"
#include "core/sched-syscall.h"
#include "core/task-attr.h"

static const struct {
        int policy;
        const char *name;
} policy_names[] = {
        { SCHED_OTHER, "normal" },
        { SCHED_BATCH, "batch" },
        { SCHED_IDLE, "idle" },
        { SCHED_FIFO, "fifo" },
        { SCHED_RR, "rr" },
        { SCHED_DEADLINE, "deadline" },
};

const char *sched_policy_to_string(int policy) {
        for (size_t i = 0; i < ELEMENTSOF(policy_names); i++)
                if (policy_names[i].policy == policy)
                        return policy_names[i].name;
        return "unknown";
}

int sched_policy_from_string(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(policy_names); i++)
                if (strcasecmp(s, policy_names[i].name) == 0)
                        return policy_names[i].policy;
        if (strcasecmp(s, "other") == 0)
                return SCHED_OTHER;
        return -EINVAL;
}

const char *ioprio_format(int ioprio, char *buf, size_t size) {
        static const char *const cls[] = { "none", "rt", "be", "idle" };
        int c = IOPRIO_VALUE_CLASS(ioprio);
        if (c == IOPRIO_CLASS_NONE_ || c == IOPRIO_CLASS_IDLE_)
                snprintf(buf, size, "%s", cls[c]);
        else if (c < (int) ELEMENTSOF(cls))
                snprintf(buf, size, "%s/%d", cls[c], IOPRIO_VALUE_LEVEL(ioprio));
        else
                snprintf(buf, size, "0x%x", ioprio);
        return buf;
}

void task_attr_from_sched_attr(const struct qos_sched_attr *sa, const KernelCaps *caps, TaskAttr *ret) {
        TaskAttr a = TASK_ATTR_NEUTRAL;

        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (knob_row(k)->from_sched)
                        knob_row(k)->from_sched(sa, caps, &a);
        *ret = a;
}

int task_attr_read_knobs(pid_t tid, unsigned mask, TaskAttr *ret) {
        const KernelCaps *caps = kernel_caps();
        struct qos_sched_attr sa;
        TaskAttr a;
        int r;

        /* One system call for every scheduler knob, and the policy is
         * needed anyway (a real-time thread is never touched). */
        r = sys_sched_getattr(tid, &sa);
        if (r < 0)
                return r;
        task_attr_from_sched_attr(&sa, caps, &a);

        /* The others only when asked for, each with its own call. */
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobRow *row = knob_row(k);
                if (!(mask & KNOB_BIT(k)) || !row->read)
                        continue;
                r = row->read(tid, caps, &a);
                if (r < 0)
                        return r;
        }

        *ret = a;
        return 0;
}

int task_attr_read(pid_t tid, TaskAttr *ret) {
        return task_attr_read_knobs(tid, KNOBS_ALL, ret);
}

unsigned task_attr_diff(const TaskAttr *a, const TaskAttr *b, unsigned mask) {
        unsigned d = 0;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!(mask & KNOB_BIT(k)))
                        continue;
                const KnobRow *row = knob_row(k);
                if (row->equal && !row->equal(a, b))
                        d |= KNOB_BIT(k);
        }
        return d;
}

bool task_attr_is_realtime(const TaskAttr *a) {
        return a->policy == SCHED_FIFO || a->policy == SCHED_RR || a->policy == SCHED_DEADLINE;
}

const char *task_attr_format_knob(const TaskAttr *a, Knob k, char *buf, size_t size) {
        const KnobRow *row = knob_row(k);
        if (row)
                row->format(a, buf, size);
        else
                snprintf(buf, size, "?");
        return buf;
}
