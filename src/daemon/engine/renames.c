/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>

#include "core/clock.h"
#include "core/log.h"
#include "engine/renames.h"
#include "engine/scan.h"
#include "control/task-control.h"

/* One process's renames: the renamed threads, or every thread when there
 * were too many to list. How many threads were evaluated, for the budget. */
static size_t do_work(Manager *m, const RenameWork *w) {
        ProcessRecord *p = process_table_get_current(&m->procs, w->tgid);
        if (!p || p->start_time != w->start_time || !p->matched)
                return 0; /* exited, or its rules changed meanwhile */
        if (w->whole) {
                int n = scan_process(m, w->tgid, SCAN_REEVALUATE);
                return n > 0 ? (size_t) n : 1;
        }
        for (size_t i = 0; i < w->n_tids; i++)
                control_thread(m, p, w->tids[i], 0);
        return w->n_tids;
}

static int on_renames_due(sd_event_source *s, uint64_t usec, void *userdata);

/* The runner at at_usec (CLOCK_MONOTONIC; 0: as soon as the events read
 * so far are handled). */
static void arm(Manager *m, uint64_t at_usec) {
        int r;
        if (m->renames_timer) {
                r = sd_event_source_set_time(m->renames_timer, at_usec);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->renames_timer, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time(m->event, &m->renames_timer, CLOCK_MONOTONIC, at_usec, 0, on_renames_due, m);
        if (r < 0)
                log_warning_errno(r, "cannot schedule the rules for renamed threads: %m");
}

static int on_renames_due(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        RenameWork w;
        uint64_t wake = 0;

        while (rename_queue_take(&m->renames, clock_usec(CLOCK_MONOTONIC), &w, &wake)) {
                uint64_t t0 = clock_usec(CLOCK_THREAD_CPUTIME_ID);
                size_t n = do_work(m, &w);
                log_debug("renames in process %d: %zu thread(s) evaluated, %" PRIu64 " µs of CPU", (int) w.tgid, n,
                          clock_usec(CLOCK_THREAD_CPUTIME_ID) - t0);
                rename_queue_charge(&m->renames, w.tgid, n, clock_usec(CLOCK_MONOTONIC));
        }
        if (wake)
                arm(m, wake);
        return 0;
}

void renames_note(Manager *m, const ProcessRecord *p, pid_t tid) {
        bool idle = !rename_queue_has_work(&m->renames);
        int r = rename_queue_note(&m->renames, p->pid, p->start_time, tid);
        if (r < 0) {
                log_warning_errno(r, "thread %d renamed: cannot note it: %m", (int) tid);
                return;
        }
        /* In the past: due once this batch of events is handled. */
        uint64_t at = 0;
        if (idle || !m->renames_timer || sd_event_source_get_time(m->renames_timer, &at) < 0 || at != 1)
                arm(m, 1);
}

void renames_forget(Manager *m, pid_t tgid) {
        rename_queue_forget(&m->renames, tgid);
}

void renames_free(Manager *m) {
        m->renames_timer = sd_event_source_disable_unref(m->renames_timer);
        rename_queue_clear(&m->renames);
}
