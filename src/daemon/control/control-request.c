/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "control/control-internal.h"
#include "core/class-relpri.h"
#include "core/kernel-caps.h"
#include "core/proc.h"
#include "decide/decide.h"
#include "overrides/override-book.h"

int control_request_pinned(Manager *m, const TaskRef *ref, const TaskAttr *base, pid_t tgid, QClass c,
                           int relpri, const char *origin, bool origin_private, bool renew) {
        const KernelCaps *caps = kernel_caps();
        pid_t tid = ref->tid;
        TaskAttr want;
        ApplyResult res;
        int r;

        if (task_attr_is_realtime(base))
                return -EBUSY;
        TaskEntry *e = control_entry_for(m, ref);
        if (!renew && (!e || e->state != TASK_REQUESTED || decide_changed_by_someone_else(e, base, caps))) {
                if (e && e->state == TASK_REQUESTED)
                        control_mark_foreign(m, e, base);
                return 0;
        }
        if (!e) {
                r = registry_add(&m->tasks, tid, tgid, ref->start_time, &e);
                if (r < 0)
                        return r;
                e->orig = *base;
        } else if (e->state == TASK_FOREIGN)
                e->orig = *base; /* what someone else set is what to go back to */
        class_target_attr_relpri(c, relpri, caps, &want);
        task_attr_place(&want, &e->orig, caps, NULL);
        e->class = c;
        e->held = false; /* a request's own hold is wanted above class */
        e->state = TASK_REQUESTED;
        e->set = want;
        proc_comm(tgid, tid, e->comm);
        r = registry_set_origin(e, NULL, origin, origin_private);
        if (r < 0)
                return r;
        state_file_append(&m->state, e);

        r = control_apply_or_rebase(m, ref, &want, KNOBS_ALL, &res);
        if (r < 0) {
                control_forget(m, tid);
                return r;
        }
        control_note_result(m, e, &want, &res);
        return 1;
}

int control_request(Manager *m, pid_t tid, uint64_t start_time, pid_t tgid, QClass c, int relpri,
                    const char *origin, bool origin_private, bool renew) {
        _cleanup_task_ref_ TaskRef ref = TASK_REF_NULL;
        TaskAttr cur;
        int r;

        r = task_ref_open(tid, start_time, &ref);
        if (r >= 0)
                r = task_ref_read_attr(&ref, &cur);
        if (r < 0) {
                control_forget(m, tid);
                return -ESRCH;
        }
        (void) override_base_view(m, &ref, &cur);
        return control_request_pinned(m, &ref, &cur, tgid, c, relpri, origin, origin_private, renew);
}
