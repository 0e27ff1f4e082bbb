/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "focus/relayed.h"
#include "core/log.h"
#include "core/macro.h"
#include "overrides/overrides.h"
#include "core/kernel-caps.h"
#include "decide/decide.h"
#include "core/proc.h"
#include "engine/scan.h"
#include "control/task-control.h"
#include "core/task-ref.h"
#include "groups/units.h"

/* A process no rule matches (any more). Its threads that qosd changed go
 * back, except across exec: a program exec'd by a managed one keeps the
 * class it inherited, as the kernel keeps it, and qosd keeps tracking it so
 * that it is restored with the rest. Returns true if anything is tracked. */
static bool settle_unmatched(Manager *m, pid_t pid, const pid_t *tids, size_t n, ScanReason why) {
        bool tracked = false;
        for (size_t i = 0; i < n; i++) {
                TaskEntry *e = registry_get(&m->tasks, tids[i]);
                if (!e)
                        continue;
                if (why == SCAN_EXEC && e->state == TASK_APPLIED) {
                        e->state = TASK_INHERITED;
                        registry_set_origin(e, e->app, "kept across exec", false);
                }
                if (e->state == TASK_APPLIED) {
                        control_restore(m, e, "no rule matches any more");
                        continue;
                }
                e->scan_gen = m->scan_gen;
                tracked = true;
        }
        return tracked;
}

int scan_process(Manager *m, pid_t pid, ScanReason why) {
        _cleanup_(process_record_freep) ProcessRecord *rec = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        TaskRef ref;
        size_t n = 0;
        Decision d;
        int r;

        r = task_ref_open(pid, 0, &ref);
        if (r < 0)
                goto gone;
        r = process_record_read(pid, ref.start_time, ruleset_uses_app_ids(m->rules), &rec);
        if (r >= 0)
                r = process_record_keep_program(rec, process_table_get(&m->procs, pid));
        if (r >= 0)
                r = proc_list_tasks(pid, &tids, &n);
        if (r >= 0)
                r = task_ref_alive(&ref); /* what was read belongs to this process */
        task_ref_close(&ref);
        if (r == -ESRCH)
                goto gone;
        if (r < 0)
                return r;

        /* The process's own verdict is its main thread's: a game no rule
         * names is matched by being a game. */
        ThreadFacts f = { .rules = m->rules, .process = rec, .caps = kernel_caps(),
                          .game_main = relayed_contains(m, RELAYED_GAMES, pid, rec->start_time) };
        r = decide_rule(&f, &d);
        if (r < 0)
                return r;
        rec->matched = r > 0 || d.match.app || d.game;
        rec->scan_gen = m->scan_gen;

        if (!rec->matched) {
                bool tracked = settle_unmatched(m, pid, tids, n, why);
                units_sync(m, pid); /* kept across exec, or no class any more */
                if (tracked)
                        return process_table_put(&m->procs, TAKE_PTR(rec));
                process_table_remove(&m->procs, pid);
                return 0;
        }
        ProcessRecord *p = TAKE_PTR(rec);
        r = process_table_put(&m->procs, p);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                control_thread(m, p, tids[i], 0);
                TaskEntry *e = registry_get(&m->tasks, tids[i]);
                if (e)
                        e->scan_gen = m->scan_gen;
        }
        units_sync(m, pid);
        return n > INT_MAX ? INT_MAX : (int) n;

gone:
        m->counters.vanished++;
        units_release(m, pid);
        process_table_remove(&m->procs, pid);
        return 0;
}

/* Tasks the scan did not see: gone (their exit event was lost), or threads
 * of a process that vanished mid-scan. Verify before dropping. */
static void sweep(Manager *m) {
        _cleanup_free_ TaskEntry **list = NULL;
        size_t n;

        if (registry_list(&m->tasks, &list, &n) < 0)
                return;
        _cleanup_free_ pid_t *stale = calloc(n + 1, sizeof *stale);
        size_t k = 0;
        if (!stale)
                return;
        for (size_t i = 0; i < n; i++) {
                if (list[i]->scan_gen == m->scan_gen)
                        continue;
                TaskRef ref;
                if (task_ref_open(list[i]->tid, list[i]->start_time, &ref) < 0)
                        stale[k++] = list[i]->tid;
                else
                        task_ref_close(&ref);
        }
        for (size_t i = 0; i < k; i++)
                control_forget(m, stale[i]);

        size_t i = 0, np = 0;
        pid_t pid;
        void *v;
        _cleanup_free_ pid_t *dead = calloc(process_table_size(&m->procs) + 1, sizeof *dead);
        if (!dead)
                return;
        while (pid_map_next(&m->procs.by_pid, &i, &pid, &v))
                if (((ProcessRecord *) v)->scan_gen != m->scan_gen)
                        dead[np++] = pid;
        for (size_t j = 0; j < np; j++)
                process_table_remove(&m->procs, dead[j]);
        rename_queue_keep(&m->renames, &m->procs.by_pid);
}

int scan_all(Manager *m, const char *why) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n;
        int r;

        /* What was lost before the listing, the listing finds. */
        uint64_t pending = m->counters.losses_pending;
        m->counters.losses_pending = 0;
        r = proc_list_pids(&pids, &n);
        if (r < 0) {
                m->counters.losses_pending = pending;
                return log_error_errno(r, "cannot list /proc: %m");
        }
        m->scan_gen++;
        m->counters.rescans++;
        log_debug("scanning %zu processes (%s)", n, why);
        for (size_t i = 0; i < n; i++) {
                r = scan_process(m, pids[i], SCAN_REEVALUATE);
                if (r == -ENOMEM)
                        return log_error_errno(r, "out of memory during scan");
        }
        sweep(m);
        overrides_sweep(m); /* owners whose EXIT was lost */
        state_file_maybe_compact(&m->state, &m->tasks);
        return 0;
}

int scan_user(Manager *m, uid_t uid, const char *why) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n, k = 0;
        int r;

        r = proc_list_pids(&pids, &n);
        if (r < 0)
                return log_error_errno(r, "cannot list /proc: %m");
        for (size_t i = 0; i < n; i++) {
                uid_t u;
                if (proc_uid(pids[i], &u) < 0 || u != uid)
                        continue;
                k++;
                r = scan_process(m, pids[i], SCAN_REEVALUATE);
                if (r == -ENOMEM)
                        return log_error_errno(r, "out of memory during scan");
        }
        log_debug("evaluated %zu processes of uid %u (%s)", k, (unsigned) uid, why);
        return 0;
}
