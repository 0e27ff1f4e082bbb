/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "core/knob-table.h"
#include "core/macro.h"
#include "core/sched-syscall.h"
#include "core/task-apply.h"
#include "core/task-privilege.h"

/* The knobs whose rows have no apply: set together by apply_sched(). */
#define SCHED_KNOBS (KNOB_BIT(KNOB_POLICY) | KNOB_BIT(KNOB_NICE) | KNOB_BIT(KNOB_SLICE))

static struct qos_sched_attr sched_attr_of(int policy, int nice, uint64_t slice, bool rof,
                                           uint64_t extra_flags) {
        return (struct qos_sched_attr) {
                .sched_policy = (uint32_t) policy,
                .sched_nice = nice,
                .sched_runtime = slice,
                .sched_flags = (rof ? SCHED_FLAG_RESET_ON_FORK : 0) | extra_flags,
        };
}

static void record(ApplyResult *res, Knob k, int r) {
        if (r < 0 && !(res->failed & KNOB_BIT(k))) {
                res->failed |= KNOB_BIT(k);
                res->error[k] = r;
        }
}

/*
 * Policy, nice, slice and reset-on-fork in one sched_setattr when the kernel
 * allows it. The kernel stores nice and sched_runtime only for SCHED_NORMAL
 * and SCHED_BATCH (and KEEP_PARAMS would keep the policy too), so for an idle
 * target they are set under SCHED_BATCH first and a second call switches to
 * SCHED_IDLE, which keeps them. If the combined call is refused, each knob is tried alone so
 * that a forbidden one (nice down, leaving SCHED_IDLE without privilege)
 * does not keep the others from applying.
 */
static int apply_sched(pid_t tid, const TaskAttr *cur, const TaskAttr *want, unsigned mask,
                       ApplyResult *res) {
        int policy = (mask & KNOB_BIT(KNOB_POLICY)) ? want->policy : cur->policy;
        int nice = (mask & KNOB_BIT(KNOB_NICE)) ? want->nice : cur->nice;
        uint64_t slice = (mask & KNOB_BIT(KNOB_SLICE)) ? want->slice_ns : cur->slice_ns;
        bool rof = (mask & KNOB_BIT(KNOB_POLICY)) ? want->reset_on_fork : cur->reset_on_fork;
        bool idle = policy == SCHED_IDLE;
        int r;

        /* A fair policy to carry nice and slice: the target's, or BATCH on
         * the way to IDLE (which is what the thread becomes a moment later). */
        int carrier = idle ? SCHED_BATCH : policy;
        struct qos_sched_attr a = sched_attr_of(carrier, nice, slice, rof, 0);
        r = sys_sched_setattr(tid, &a);
        if (r >= 0 && idle) {
                a = sched_attr_of(SCHED_IDLE, nice, slice, rof, 0);
                r = sys_sched_setattr(tid, &a);
        }
        if (r >= 0 || r == -ESRCH)
                return r;

        /* Knob by knob, each step starting from what the previous ones left.
         * Nice goes through setpriority, which works under any policy; the
         * slice keeps the current policy; the policy keeps nice and slice. */
        TaskAttr now = *cur;
        if (nice != now.nice) {
                r = sys_set_nice(tid, nice);
                record(res, KNOB_NICE, r);
                if (r >= 0)
                        now.nice = nice;
        }
        if (slice != now.slice_ns && now.policy == SCHED_IDLE)
                record(res, KNOB_SLICE, -EPERM); /* SCHED_IDLE ignores slices; leaving it needs privilege */
        else if (slice != now.slice_ns) {
                a = sched_attr_of(now.policy, now.nice, slice, now.reset_on_fork, 0);
                r = sys_sched_setattr(tid, &a);
                record(res, KNOB_SLICE, r);
                if (r >= 0)
                        now.slice_ns = slice;
        }
        if (policy != now.policy || rof != now.reset_on_fork) {
                a = sched_attr_of(policy, now.nice, now.slice_ns, rof, 0);
                record(res, KNOB_POLICY, sys_sched_setattr(tid, &a));
        }
        return 0;
}

/* What a read of only the knobs in mask left neutral: as it was before. */
static void keep_unread(TaskAttr *after, const TaskAttr *before, unsigned mask) {
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (!(mask & KNOB_BIT(k)) && knob_row(k)->copy)
                        knob_row(k)->copy(after, before);
}

int task_apply_attr(pid_t tid, const TaskAttr *want, unsigned mask, ApplyResult *ret) {
        TaskAttr before;
        int r = task_attr_read_knobs(tid, mask, &before);
        if (r < 0)
                return r;
        return task_apply_attr_from(tid, &before, want, mask, ret);
}

int task_apply_attr_from(pid_t tid, const TaskAttr *before, const TaskAttr *want, unsigned mask,
                         ApplyResult *ret) {
        const KernelCaps *caps = kernel_caps();
        ApplyResult res = { .before = *before };
        unsigned todo;
        int r;

        if (task_attr_is_realtime(&res.before))
                return -EBUSY;

        for (Knob k = 0; k < _KNOB_MAX; k++)
                if ((mask & KNOB_BIT(k)) && !caps->supported[k])
                        res.unsupported |= KNOB_BIT(k);
        mask &= ~res.unsupported;

        todo = task_attr_diff(&res.before, want, mask);
        /* reset-on-fork travels with the policy. */
        if ((mask & KNOB_BIT(KNOB_POLICY)) && res.before.reset_on_fork != want->reset_on_fork)
                todo |= KNOB_BIT(KNOB_POLICY);
        if (todo == 0) {
                /* Already there: nothing to apply, nothing new to read. */
                res.after = res.before;
                res.applied = mask;
                *ret = res;
                return 0;
        }

        if (todo & SCHED_KNOBS) {
                r = apply_sched(tid, &res.before, want, mask & SCHED_KNOBS, &res);
                if (r == -ESRCH)
                        return r;
                if (r < 0)
                        for (Knob k = 0; k < _KNOB_MAX; k++)
                                if (todo & SCHED_KNOBS & KNOB_BIT(k))
                                        record(&res, k, r);
        }
        /* The others each on their own. */
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if ((todo & KNOB_BIT(k) & ~SCHED_KNOBS) && knob_row(k)->apply)
                        record(&res, k, knob_row(k)->apply(tid, &res.before, want));

        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (res.error[k] == -ESRCH)
                        return -ESRCH;

        /* The kernel's word is what it reads back, not what it returned. */
        r = task_attr_read_knobs(tid, mask, &res.after);
        if (r < 0)
                return r;
        keep_unread(&res.after, &res.before, mask);
        unsigned still = task_attr_diff(&res.after, want, mask);
        if ((mask & KNOB_BIT(KNOB_POLICY)) && res.after.reset_on_fork != want->reset_on_fork)
                still |= KNOB_BIT(KNOB_POLICY);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (still & KNOB_BIT(k))
                        record(&res, k, -EOPNOTSUPP); /* accepted but did not take */
        res.failed &= still; /* a knob that failed once but reads back right took */
        res.applied = mask & ~still;
        res.changed = task_attr_diff(&res.before, &res.after, KNOBS_ALL);
        *ret = res;
        return 0;
}

int task_apply_class(pid_t tid, QClass c, ApplyResult *ret) {
        TaskAttr want, before;

        if (!qclass_is_valid(c))
                return -EINVAL;
        int r = task_attr_read(tid, &before);
        if (r < 0)
                return r;
        class_target_attr(c, kernel_caps(), &want);
        task_attr_place(&want, &before, kernel_caps(), NULL);
        /* Without privilege the kernel will not clear reset-on-fork; aim
         * for what can be reached so that a demotion is not reported as a
         * refused promotion. */
        if (!kernel_caps()->privileged)
                task_attr_unprivileged_target(&before, &want);
        return task_apply_attr_from(tid, &before, &want, KNOBS_ALL, ret);
}

bool task_apply_transit_attr(QClass c, const KernelCaps *caps, TaskAttr *ret) {
        if (!qclass_is_valid(c))
                return false;
        class_target_attr(c, caps, ret);
        if (ret->policy != SCHED_IDLE)
                return false;
        ret->policy = SCHED_BATCH; /* the carrier in apply_sched() */
        return true;
}

int apply_result_error(const ApplyResult *r) {
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (r->failed & KNOB_BIT(k))
                        return r->error[k];
        return 0;
}
