/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>

#include "control/control-internal.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "core/macro.h"
#include "decide/decide.h"
#include "overrides/override-book.h"

void control_forget(Manager *m, pid_t tid) {
        TaskEntry *e = registry_get(&m->tasks, tid);
        if (!e)
                return;
        if (e->state != TASK_FOREIGN)
                state_file_forget(&m->state, e->tid, e->start_time);
        registry_remove(&m->tasks, tid);
}

int control_restore(Manager *m, TaskEntry *e, const char *why) {
        _cleanup_task_ref_ TaskRef ref = TASK_REF_NULL;
        const KernelCaps *caps = kernel_caps();
        pid_t tid = e->tid;
        TaskAttr cur;
        ApplyResult res;
        int r;

        if (e->state == TASK_FOREIGN) {
                /* Someone else owns it now; restoring would revert their change. */
                registry_remove(&m->tasks, tid);
                return 0;
        }
        r = task_ref_open(tid, e->start_time, &ref);
        if (r >= 0)
                r = task_ref_read_attr(&ref, &cur);
        if (r < 0) {
                control_forget(m, tid);
                return 0;
        }
        (void) override_base_view(m, &ref, &cur);
        if (task_attr_is_realtime(&cur) ||
            (decide_changed_by_someone_else(e, &cur, caps) && !decide_has_class(e, &cur, e->class, caps))) {
                if (control_foreign_unless_exiting(m, e, &ref, &cur))
                        registry_remove(&m->tasks, tid);
                return 0;
        }
        r = control_apply_or_rebase(m, &ref, &e->orig, KNOBS_ALL & ~e->unsupported, &res);
        if (r >= 0 && res.failed) {
                char knobs[128];
                log_warning("thread %d: could not restore %s: %s", (int) tid,
                            knob_mask_to_string(res.failed, knobs, sizeof knobs),
                            strerror(-apply_result_error(&res)));
        }
        if (r >= 0) {
                m->counters.restored++;
                log_debug("thread %d: restored (%s)", (int) tid, why);
        }
        control_forget(m, tid);
        return 0;
}

size_t control_restore_all(Manager *m) {
        _cleanup_free_ TaskEntry **list = NULL;
        size_t n, before = m->counters.restored;

        if (registry_list(&m->tasks, &list, &n) < 0)
                return 0;
        /* Copy the TIDs: restoring removes entries and may reshuffle the map. */
        _cleanup_free_ pid_t *tids = calloc(n + 1, sizeof *tids);
        if (!tids)
                return 0;
        for (size_t i = 0; i < n; i++)
                tids[i] = list[i]->tid;
        for (size_t i = 0; i < n; i++) {
                TaskEntry *e = registry_get(&m->tasks, tids[i]);
                if (e)
                        control_restore(m, e, "qosd is exiting");
        }
        return (size_t) (m->counters.restored - before);
}
