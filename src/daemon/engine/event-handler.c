/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>

#include "broker/broker.h"
#include "core/clock.h"
#include "engine/event-handler.h"
#include "core/log.h"
#include "state/manager.h"
#include "overrides/overrides.h"
#include "core/proc.h"
#include "engine/renames.h"
#include "engine/scan.h"
#include "control/task-control.h"
#include "groups/units.h"

/* Coalesce losses: a storm overflows the queue again and again; one scan
 * shortly after the last loss is what converges. */
#define RESCAN_DELAY_USEC (50 * 1000)
/* A storm that keeps overflowing the queue would keep qosd scanning: the
 * wait before the next scan is at least this many times what the last
 * one took, so rescans take at most a thirtieth of a CPU. */
#define RESCAN_COST_FACTOR 29

static uint64_t rescan_delay(const Manager *m) {
        uint64_t d = m->rescan_cost_usec * RESCAN_COST_FACTOR;
        return d > RESCAN_DELAY_USEC ? d : RESCAN_DELAY_USEC;
}

static void on_fork(Manager *m, const ProcEvent *ev) {
        if (ev->tid != ev->tgid) {
                /* A new thread. A process no rule matched and none of
                 * whose threads qosd manages (the broker's, the loans')
                 * costs two lookups. The event names the process's parent,
                 * not the creating thread (a thread's real_parent is its
                 * process's), so the main thread stands in for the
                 * creator. */
                ProcessRecord *p = process_table_get_current(&m->procs, ev->tgid);
                if (p && p->matched)
                        control_thread(m, p, ev->tid, ev->tgid);
                else if (p || registry_has_process(&m->tasks, ev->tgid))
                        control_inherit(m, ev->tid, ev->tgid, ev->tgid);
                return;
        }

        /* A new process: a copy of its parent until it execs, so it matches
         * the same rules; no /proc reads beyond its start time. */
        ProcessRecord *pp = process_table_get_current(&m->procs, ev->parent_tgid), *child;
        uint64_t start;
        if (!pp)
                return;
        if (proc_start_time(ev->tid, &start) < 0 ||
            process_record_copy(pp, ev->tid, start, &child) < 0) {
                m->counters.vanished++;
                return;
        }
        if (process_table_put(&m->procs, child) < 0)
                return;
        if (child->matched) {
                /* For a process, the event does name the forking thread. */
                if (control_fork(m, child, ev->tid, start, ev->parent_tid) == 0)
                        control_thread(m, child, ev->tid, ev->parent_tid);
        }
        else if (control_inherit(m, ev->tid, ev->tid, ev->parent_tid) <= 0) {
                process_table_remove(&m->procs, ev->tid);
                return;
        }
        /* The child is in its parent's unit: it holds the unit's weight too. */
        units_sync(m, ev->tid);
}

/* Noted only: a program renames its threads as often as it likes, each a
 * cheap event; the work is coalesced and budgeted (renames.h), and the
 * record checked then. */
static void on_comm(Manager *m, const ProcEvent *ev) {
        ProcessRecord *p = process_table_get(&m->procs, ev->tgid);
        if (p && p->matched)
                renames_note(m, p, ev->tid);
}

static void on_exit_event(Manager *m, const ProcEvent *ev) {
        control_forget(m, ev->tid);
        overrides_task_exited(m, ev->tid);
        if (ev->tid == ev->tgid) {
                process_table_remove(&m->procs, ev->tgid);
                renames_forget(m, ev->tgid);
                units_release(m, ev->tgid);
        }
}

void manager_on_proc_event(const ProcEvent *ev, void *userdata) {
        Manager *m = userdata;

        if (m->exiting)
                return;
        switch (ev->type) {
        case PROC_EV_FORK:
                on_fork(m, ev);
                break;
        case PROC_EV_EXEC:
                scan_process(m, ev->tgid, SCAN_EXEC);
                /* Exec leaves one thread, the main one, which keeps a
                 * request across it; the new program's caps bind it. */
                broker_reevaluate_thread(m, ev->tgid, "the process exec'd a new program");
                break;
        case PROC_EV_COMM:
                on_comm(m, ev);
                break;
        case PROC_EV_EXIT:
                on_exit_event(m, ev);
                break;
        }
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        sd_event_source_set_enabled(s, SD_EVENT_OFF);
        /* Its CPU time: on a busy machine the wall clock would count the
         * others' time as qosd's, and delay the next scan for nothing. */
        uint64_t start = clock_usec(CLOCK_THREAD_CPUTIME_ID);
        scan_all(m, "events were lost");
        m->rescan_cost_usec = clock_usec(CLOCK_THREAD_CPUTIME_ID) - start;
        log_debug("rescan: %" PRIu64 " µs of CPU; the next one after a loss waits %" PRIu64 " ms at least",
                  m->rescan_cost_usec, rescan_delay(m) / 1000);
        return 0;
}

void manager_on_events_lost(const char *why, void *userdata) {
        Manager *m = userdata;
        int enabled = SD_EVENT_OFF;
        int r;

        log_debug("proc connector: %s, rescanning", why);
        m->counters.losses_pending++;
        if (m->rescan_timer) {
                sd_event_source_get_enabled(m->rescan_timer, &enabled);
                if (enabled != SD_EVENT_OFF)
                        return; /* already pending */
                r = sd_event_source_set_time_relative(m->rescan_timer, rescan_delay(m));
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->rescan_timer, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time_relative(m->event, &m->rescan_timer, CLOCK_MONOTONIC,
                                               rescan_delay(m), 0, on_rescan_timer, m);
        if (r < 0) {
                log_warning_errno(r, "cannot schedule rescan, scanning now: %m");
                scan_all(m, "events were lost");
        }
}
