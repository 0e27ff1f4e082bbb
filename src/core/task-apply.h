/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Apply attributes to one thread knob by knob and say which took. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "core/kernel-caps.h"
#include "core/knob.h"
#include "core/qclass.h"
#include "core/task-attr.h"

typedef struct ApplyResult {
        TaskAttr before;          /* what the thread had: the original to restore
                                   * (knobs outside the mask only if the caller read them) */
        TaskAttr after;           /* what it reads back now (outside the mask: as before) */
        unsigned changed;         /* knobs whose value changed */
        unsigned applied;         /* knobs that now read back as wanted */
        unsigned unsupported;     /* knobs this kernel lacks (skipped) */
        unsigned failed;          /* knobs refused or ignored; see error[] */
        int error[_KNOB_MAX];     /* negative errno per failed knob */
} ApplyResult;

/* Bring thread tid to `want` on the knobs in `mask`. Knobs the kernel lacks
 * are skipped; a refused knob does not stop the others. Returns 0 when the
 * thread could be read (inspect ret for what took), -ESRCH if it is gone (not
 * an error for callers: it exited), -EBUSY for a real-time or deadline thread,
 * which is left untouched, or another negative errno if it cannot be read. */
int task_apply_attr(pid_t tid, const TaskAttr *want, unsigned mask, ApplyResult *ret);

/* task_apply_attr() for a caller that has just read the thread (to decide
 * what to ask for): `before` is that reading, which saves reading it again. */
int task_apply_attr_from(pid_t tid, const TaskAttr *before, const TaskAttr *want, unsigned mask,
                         ApplyResult *ret);

/* task_apply_attr() with the target of class c on this kernel, all knobs. */
int task_apply_class(pid_t tid, QClass c, ApplyResult *ret);

/* The state a thread passes through between the two system calls that
 * apply class c (a SCHED_IDLE class: nice and slice are set under
 * SCHED_BATCH first). False for classes applied in one call. A reader that
 * finds a thread in this state has caught someone applying c. */
bool task_apply_transit_attr(QClass c, const KernelCaps *caps, TaskAttr *ret);

/* True if every knob that was attempted took. */
static inline bool apply_result_ok(const ApplyResult *r) {
        return r->failed == 0;
}

/* The first error among failed knobs, or 0. */
int apply_result_error(const ApplyResult *r);
