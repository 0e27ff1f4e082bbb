/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Crash recovery of loans, in /run/qos/qosd.loans (the state file's format
 * and trust, state-file.h): a record per thread with overrides, its base
 * and what the loans left on it. Loans do not survive qosd: a qosd killed
 * with loans active leaves threads raised that no waiter lends to any
 * more, so the next qosd puts each one back at its base before it does
 * anything else, unless someone changed the thread meanwhile. */
#include "core/class-table.h"
#include "core/log.h"
#include "overrides/override-internal.h"
#include "core/task-ref.h"

static StateRecord owner_record(const Owner *o, const TaskAttr *now) {
        QClass c = qclass_max(o->base_class, override_stack_top(&o->stack));
        return (StateRecord) { .tid = o->ref.tid, .start_time = o->ref.start_time,
                               .class = qclass_is_valid(c) ? c : QCLASS_DEFAULT, .orig = o->base, .set = *now };
}

/* Write-ahead, as for the rules' changes (state-file.h): the owner's base
 * and what it is about to run at are on disk before the task changes, so
 * that a qosd killed with loans active can, on its next start, put the
 * thread back at its base. A new base replaces the record (a forget, then
 * the record), since a replay keeps a task's first original. */
void owner_log(Owner *o, const TaskAttr *now) {
        if (!o->log)
                return;
        if (o->logged && task_attr_diff(&o->logged_base, &o->base, KNOBS_ALL) != 0) {
                state_file_forget(o->log, o->ref.tid, o->ref.start_time);
                o->logged = false;
        }
        StateRecord rec = owner_record(o, now);
        if (state_file_append_record(o->log, &rec) >= 0) {
                o->logged = true;
                o->logged_base = o->base;
        }
}

int override_log_write(int fd, const void *source, size_t *ret_n) {
        const Manager *m = source;
        size_t n = 0;
        int r = 0;
        for (Owner *o = m->overrides ? m->overrides->owners : NULL; o && r >= 0; o = o->next) {
                if (o->gone || !o->applied)
                        continue;
                StateRecord rec = owner_record(o, &o->now);
                r = state_file_write_record(fd, &rec);
                o->logged = r >= 0;
                o->logged_base = o->base;
                n++;
        }
        *ret_n = n;
        return r;
}

size_t override_log_recover(const char *path) {
        PidMap records;
        size_t i = 0, n = 0;
        void *v;

        if (state_file_load(path, &records) < 0)
                return 0;
        while (pid_map_next(&records, &i, NULL, &v)) {
                const StateRecord *rec = v;
                TaskRef ref;
                TaskAttr cur;
                ApplyResult res;
                if (task_ref_open(rec->tid, rec->start_time, &ref) < 0)
                        continue; /* gone, or its TID is another task's now */
                if (task_ref_read_attr(&ref, &cur) >= 0 && task_attr_diff(&cur, &rec->set, KNOBS_ALL) == 0 &&
                    cur.reset_on_fork == rec->set.reset_on_fork &&
                    task_ref_apply(&ref, &rec->orig, KNOBS_ALL, &res) >= 0) {
                        log_debug("thread %d: back at its base, its loans ended with the previous run",
                                  (int) rec->tid);
                        n++;
                }
                task_ref_close(&ref);
        }
        state_records_free(&records);
        if (n > 0)
                log_info("%s: %zu thread(s) raised by loans of the previous run are back at their own settings",
                         path, n);
        return n;
}
