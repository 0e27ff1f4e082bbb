/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/group.h"
#include "core/kernel-caps.h"
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
        TaskAttr a = { .uclamp_max = 1024 };

        a.policy = (int) sa->sched_policy;
        a.nice = sa->sched_nice;
        a.reset_on_fork = sa->sched_flags & SCHED_FLAG_RESET_ON_FORK;
        /* 6.12+ reports the slice in sched_runtime whether custom or not; a
         * slice equal to the default is the default. Older kernels report 0. */
        if (caps->supported[KNOB_SLICE] && sa->sched_runtime != caps->default_slice_ns)
                a.slice_ns = sa->sched_runtime;
        if (caps->supported[KNOB_UCLAMP]) {
                a.uclamp_min = (int) sa->sched_util_min;
                a.uclamp_max = (int) sa->sched_util_max;
        }
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

        if (mask & KNOB_BIT(KNOB_IOPRIO)) {
                r = sys_ioprio_get(tid);
                if (r < 0)
                        return r;
                a.ioprio = r;
        }

        if (mask & KNOB_BIT(KNOB_TIMER_SLACK)) {
                r = sys_timer_slack_get(tid, &a.timer_slack_ns);
                if (r == -ESRCH)
                        return r;
                if (r < 0)
                        a.timer_slack_ns = 0; /* unreadable (another user's thread): unknown */
        }

        if ((mask & KNOB_BIT(KNOB_GROUP)) && caps->supported[KNOB_GROUP]) {
                GroupPlace place;
                r = group_locate(tid, &place, &a.group, NULL);
                if (r == -ESRCH)
                        return r;
                /* Unreadable: treat as another manager's, so never moved. */
                a.group_foreign = r < 0 || place == GROUP_PLACE_FOREIGN;
        }

        *ret = a;
        return 0;
}

int task_attr_read(pid_t tid, TaskAttr *ret) {
        return task_attr_read_knobs(tid, KNOBS_ALL, ret);
}

unsigned task_attr_diff(const TaskAttr *a, const TaskAttr *b, unsigned mask) {
        unsigned d = 0;

        if (a->policy != b->policy)
                d |= KNOB_BIT(KNOB_POLICY);
        /* nice means nothing to the kernel under SCHED_IDLE, but it is kept
         * and comes back into force if the policy changes: compare it too. */
        if (a->nice != b->nice)
                d |= KNOB_BIT(KNOB_NICE);
        if (a->slice_ns != b->slice_ns)
                d |= KNOB_BIT(KNOB_SLICE);
        if (a->uclamp_min != b->uclamp_min || a->uclamp_max != b->uclamp_max)
                d |= KNOB_BIT(KNOB_UCLAMP);
        if (a->ioprio != b->ioprio)
                d |= KNOB_BIT(KNOB_IOPRIO);
        if (a->timer_slack_ns != b->timer_slack_ns)
                d |= KNOB_BIT(KNOB_TIMER_SLACK);
        if (a->group != b->group)
                d |= KNOB_BIT(KNOB_GROUP);
        return d & mask;
}

bool task_attr_is_realtime(const TaskAttr *a) {
        return a->policy == SCHED_FIFO || a->policy == SCHED_RR || a->policy == SCHED_DEADLINE;
}

static const char *format_ns(uint64_t ns, char *buf, size_t size) {
        if (ns >= 1000000)
                snprintf(buf, size, "%.2fms", (double) ns / 1e6);
        else
                snprintf(buf, size, "%" PRIu64 "us", ns / 1000);
        return buf;
}

const char *task_attr_format_knob(const TaskAttr *a, Knob k, char *buf, size_t size) {
        switch (k) {
        case KNOB_POLICY:
                snprintf(buf, size, "%s", sched_policy_to_string(a->policy));
                break;
        case KNOB_NICE:
                snprintf(buf, size, "%d", a->nice);
                break;
        case KNOB_SLICE:
                if (a->slice_ns == 0)
                        snprintf(buf, size, "default");
                else
                        format_ns(a->slice_ns, buf, size);
                break;
        case KNOB_UCLAMP:
                snprintf(buf, size, "%d..%d", a->uclamp_min, a->uclamp_max);
                break;
        case KNOB_RAMPUP:
                snprintf(buf, size, "-");
                break;
        case KNOB_IOPRIO:
                ioprio_format(a->ioprio, buf, size);
                break;
        case KNOB_TIMER_SLACK:
                if (a->timer_slack_ns == 0)
                        snprintf(buf, size, "?");
                else
                        format_ns(a->timer_slack_ns, buf, size);
                break;
        case KNOB_GROUP:
                if (a->group != QCLASS_UNSPECIFIED)
                        snprintf(buf, size, "%s.%s", group_prefix(), qclass_to_string(a->group));
                else if (a->group_foreign)
                        snprintf(buf, size, "foreign");
                else
                        snprintf(buf, size, "%s", kernel_caps()->cgroup.autogroup ? "autogroup" : "root");
                break;
        default:
                snprintf(buf, size, "?");
        }
        return buf;
}
