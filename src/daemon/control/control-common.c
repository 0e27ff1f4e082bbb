/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "control/control-internal.h"
#include "core/group.h"
#include "core/log.h"
#include "overrides/override-book.h"

int control_apply_or_rebase(Manager *m, const TaskRef *ref, const TaskAttr *want, unsigned mask, ApplyResult *res) {
        int r = override_rebase(m, ref, want, res);
        return r == 0 ? task_ref_apply(ref, want, mask, res) : r < 0 ? r : 0;
}

void control_mark_foreign(Manager *m, TaskEntry *e, const TaskAttr *cur) {
        char now[16];
        if (e->state == TASK_FOREIGN)
                return;
        e->state = TASK_FOREIGN;
        m->counters.foreign++;
        log_info("thread %d (process %d): scheduling changed by someone else (policy %s nice %s), leaving it alone",
                 (int) e->tid, (int) e->tgid, sched_policy_to_string(cur->policy),
                 task_attr_format_knob(cur, KNOB_NICE, now, sizeof now));
        /* Not ours to restore any more. */
        state_file_forget(&m->state, e->tid, e->start_time);
}

bool control_foreign_unless_exiting(Manager *m, TaskEntry *e, const TaskRef *ref, const TaskAttr *cur) {
        if (task_ref_exiting(ref)) {
                m->counters.vanished++;
                control_forget(m, e->tid);
                return false;
        }
        control_mark_foreign(m, e, cur);
        return true;
}

TaskEntry *control_entry_for(Manager *m, const TaskRef *ref) {
        TaskEntry *e = registry_get(&m->tasks, ref->tid);
        if (e && e->start_time != ref->start_time) {
                control_forget(m, ref->tid);
                return NULL;
        }
        return e;
}

static void record_result(Manager *m, TaskEntry *e, const ApplyResult *res) {
        if (!m->group_uclamp_told && group_uclamp_missing()) {
                m->group_uclamp_told = true;
                log_info("kernel: cpu groups without cpu.uclamp.min/max (CONFIG_UCLAMP_TASK_GROUP); "
                         "qosd's groups go without utilization clamps");
        }
        e->set = res->after;
        e->applied = res->applied;
        e->failed = res->failed;
        e->unsupported = res->unsupported;
        memcpy(e->error, res->error, sizeof e->error);
        if (res->failed) {
                m->counters.refused++;
                char knobs[128];
                log_debug("thread %d: kernel refused %s: %s", (int) e->tid,
                          knob_mask_to_string(res->failed, knobs, sizeof knobs),
                          strerror(-apply_result_error(res)));
        }
}

void control_note_result(Manager *m, TaskEntry *e, const TaskAttr *want, const ApplyResult *res) {
        record_result(m, e, res);
        if (task_attr_diff(&res->after, want, KNOBS_ALL) != 0)
                state_file_append(&m->state, e); /* what really took, for the read-back */
        if (res->changed)
                m->counters.applied++;
        else
                m->counters.unchanged++;
}

int control_vanished(Manager *m, pid_t tid) {
        m->counters.vanished++;
        control_forget(m, tid);
        return 0;
}
