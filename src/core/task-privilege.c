/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sched.h>
#include <sys/resource.h>

#include "core/kernel-caps.h"
#include "core/knob.h"
#include "core/task-privilege.h"

uint64_t task_rlimit_nice(void) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_NICE, &rl) < 0)
                return 0;
        return rl.rlim_cur == RLIM_INFINITY ? 40 : rl.rlim_cur;
}

unsigned task_unprivileged_knobs(bool self) {
        unsigned m = KNOBS_ALL & ~KNOB_BIT(KNOB_GROUP);
        return self ? m : m & ~KNOB_BIT(KNOB_TIMER_SLACK);
}

void task_attr_unprivileged_target(const TaskAttr *cur, TaskAttr *want) {
        if (cur->reset_on_fork)
                want->reset_on_fork = true;
}

/* The kernel's can_nice(): RLIMIT_NICE counts 1..40 for nice 19..-20. */
static bool nice_allowed(int nice, uint64_t rlimit_nice) {
        return (uint64_t) (20 - nice) <= rlimit_nice;
}

bool task_change_needs_privilege(const TaskAttr *cur, const TaskAttr *want, unsigned mask,
                                 uint64_t rlimit_nice) {
        bool policy = mask & KNOB_BIT(KNOB_POLICY);
        int to_policy = policy ? want->policy : cur->policy;
        int to_nice = (mask & KNOB_BIT(KNOB_NICE)) ? want->nice : cur->nice;

        if (to_nice < cur->nice && !nice_allowed(to_nice, rlimit_nice))
                return true;
        if (cur->policy == SCHED_IDLE && to_policy != SCHED_IDLE && !nice_allowed(cur->nice, rlimit_nice))
                return true;
        /* Classes never ask for real-time policies; the rest is free. */
        return policy && cur->reset_on_fork && !want->reset_on_fork;
}

bool task_plan_own_change(const TaskAttr *cur, bool self, TaskAttr *want, unsigned *mask) {
        if (kernel_caps()->privileged)
                return false;
        *mask &= task_unprivileged_knobs(self);
        task_attr_unprivileged_target(cur, want);
        /* A larger RLIMIT_NICE only allows more, so the limit is read only
         * when the change would need privilege without it. */
        return task_change_needs_privilege(cur, want, *mask, 0) &&
               task_change_needs_privilege(cur, want, *mask, task_rlimit_nice());
}
