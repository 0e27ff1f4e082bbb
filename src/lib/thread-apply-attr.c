/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* thread_apply_attr() on its own: the override registry (override.c)
 * needs it, and so does the preload library, which must not link the
 * D-Bus client that thread-apply.c's brokered path brings. */
#include <errno.h>

#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "core/task-apply.h"
#include "lib/thread-apply.h"

/* The fast path: the kernel's word on the knobs that make the class
 * (policy, nice, slice). A refused I/O priority or timer slack does not
 * fail the request; nothing else on this path can be refused. */
int thread_apply_attr(pid_t tid, const TaskAttr *cur, const TaskAttr *want, unsigned mask) {
        const KernelCaps *caps = kernel_caps();
        ApplyResult res;

        int r = cur ? task_apply_attr_from(tid, cur, want, mask, &res) : task_apply_attr(tid, want, mask, &res);
        if (r < 0)
                return r;
        unsigned identity = class_identity_knobs(caps);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (res.failed & identity & KNOB_BIT(k))
                        return res.error[k] == -EACCES ? -EPERM : res.error[k];
        return 0;
}
