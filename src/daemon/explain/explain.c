/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attr-format.h"
#include "focus/focus.h"
#include "core/class-table.h"
#include "explain/explain.h"
#include "core/group.h"
#include "groups/units.h"
#include "core/kernel-caps.h"
#include "core/macro.h"
#include "overrides/override-book.h"
#include "decide/decide.h"
#include "core/proc.h"
#include "control/task-control.h"

static int add(Explanation *x, const char *key, const char *fmt, ...) _printf_(3, 4);
static int add(Explanation *x, const char *key, const char *fmt, ...) {
        ExplainLine *l = realloc(x->lines, (x->n + 1) * sizeof *l);
        va_list ap;
        if (!l)
                return -ENOMEM;
        x->lines = l;
        l = &x->lines[x->n];
        va_start(ap, fmt);
        int r = vasprintf(&l->value, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        l->key = strdup(key);
        if (!l->key) {
                free(l->value);
                return -ENOMEM;
        }
        x->n++;
        return 0;
}

void explanation_clear(Explanation *x) {
        for (size_t i = 0; i < x->n; i++) {
                free(x->lines[i].key);
                free(x->lines[i].value);
        }
        free(x->lines);
        *x = (Explanation) {};
}

bool explain_may_see(uid_t viewer, pid_t tid) {
        return viewer == 0 || proc_owned_by(tid, viewer) > 0;
}

static const char *shown(bool own, const char *value) {
        return own ? value : EXPLAIN_HIDDEN;
}

/* A rule in a user's own directory is that user's private file: its path,
 * which line matched and what it says are the owner's (and root's) to
 * see. Others learn only that a user rule applied. The admin's files are
 * public. */
static const char *shown_rule(bool own, bool user_file, const char *value) {
        return own || !user_file ? value : EXPLAIN_USER_RULE;
}

/* The knobs as /proc and the scheduler calls show them to the viewer:
 * policy, nice, slice, ioprio and the cpu cgroup any user may read; the
 * timer slack of another process only with CAP_SYS_NICE. */
static const char *knobs(bool own, const TaskAttr *a, char *buf, size_t size) {
        task_attr_format(a, own ? KNOBS_ALL : KNOBS_ALL & ~KNOB_BIT(KNOB_TIMER_SLACK), buf, size);
        if (!own && kernel_caps()->supported[KNOB_TIMER_SLACK]) {
                size_t len = strlen(buf);
                snprintf(buf + len, size - len, "%s%s=hidden", len ? " " : "", knob_to_string(KNOB_TIMER_SLACK));
        }
        return buf;
}

static const char *verdict(const Decision *d, char *buf, size_t size) {
        char origin[300];
        if (!d->match.app && d->class == QCLASS_UNSPECIFIED) {
                snprintf(buf, size, "no rule matches");
                return buf;
        }
        if (d->class == QCLASS_UNSPECIFIED) {
                snprintf(buf, size, "application %s matches, but no Class= applies", d->match.app ?: "?");
                return buf;
        }
        if (d->game) {
                snprintf(buf, size, "%s: %s", qclass_to_string(d->wanted), decision_origin(d, origin, sizeof origin));
                return buf;
        }
        snprintf(buf, size, "%s from %s (application %s%s%s)", qclass_to_string(d->wanted),
                 decision_origin(d, origin, sizeof origin), d->match.app ?: "?",
                 d->match.thread_rule ? ", thread rule" : ", process rule",
                 d->match.user_rule ? ", the owner's own file" : "");
        return buf;
}

static int explain_knobs(Explanation *x, const TaskEntry *e) {
        const KernelCaps *caps = kernel_caps();
        char buf[256];
        int r = 0;

        if (e->applied)
                r = add(x, "kernel accepted", "%s", knob_mask_to_string(e->applied, buf, sizeof buf));
        for (Knob k = 0; k < _KNOB_MAX && r >= 0; k++) {
                if (k == KNOB_GROUP && e->error[k] == -EBUSY)
                        continue; /* another manager's cgroup: the "group" line says why */
                if (e->failed & KNOB_BIT(k))
                        r = add(x, "kernel refused", "%s: %s", knob_to_string(k), strerror(-e->error[k]));
                else if ((e->unsupported & KNOB_BIT(k)) || !caps->supported[k])
                        r = add(x, "not in this kernel", "%s: %s", knob_to_string(k),
                                kernel_caps_reason(caps, k));
        }
        return r;
}

static const char *lock_name(bool own, uint64_t lock, char *buf, size_t size) {
        if (!lock)
                return "a lock qosd was not told of";
        if (!own)
                return "lock " EXPLAIN_HIDDEN;
        snprintf(buf, size, "lock %#" PRIx64, lock);
        return buf;
}

/* What qosd's overrides say of the thread: its base and the loans on it
 * (who lent what, through which lock), or the locks it waits on. */
static int explain_loans(Manager *m, Explanation *x, pid_t pid, pid_t tid, uint64_t start, bool own) {
        _cleanup_free_ LoanInfo *loans = NULL, *all = NULL;
        char buf[512], lk[64];
        TaskAttr base;
        QClass base_class, now;
        size_t n = 0, n_all = 0;
        int r = 0;

        if (override_owner_state(m, tid, start, &base, &base_class, &now) >= 0) {
                r = add(x, "base", "%s (%s)", base_class ? qclass_to_string(base_class) : "custom",
                        knobs(own, &base, buf, sizeof buf));
                if (r >= 0)
                        r = override_loans(m, tid, start, &loans, &n);
                for (size_t i = 0; r >= 0 && i < n; i++) {
                        const LoanInfo *l = &loans[i];
                        if (l->via)
                                r = add(x, "loan", "%s from thread %d (%s of its own), along a chain: thread %d "
                                        "waits on %s held by this one", qclass_to_string(l->c), (int) l->lender,
                                        qclass_to_string(l->lender_class), (int) l->via,
                                        lock_name(own, l->lock, lk, sizeof lk));
                        else
                                r = add(x, "loan", "%s from thread %d (%s of its own), which waits on %s held by "
                                        "this one", qclass_to_string(l->c), (int) l->lender,
                                        qclass_to_string(l->lender_class), lock_name(own, l->lock, lk, sizeof lk));
                }
                if (r >= 0)
                        r = add(x, "runs at", "%s (the highest of its base and its loans)", qclass_to_string(now));
        }
        if (r >= 0)
                r = override_loans(m, 0, 0, &all, &n_all);
        for (size_t i = 0; r >= 0 && i < n_all; i++)
                if (all[i].pid == pid && all[i].lender == tid && all[i].via == 0)
                        r = add(x, "waits on", "%s held by thread %d (base %s)%s",
                                lock_name(own, all[i].lock, lk, sizeof lk), (int) all[i].owner,
                                qclass_to_string(all[i].base_class),
                                all[i].base_class < all[i].c ? ": stalled behind a lower class" : "");
        return r;
}

/* What the rules say of the process and of this thread, with the gate. */
static int explain_rules(Manager *m, Explanation *x, const ProcessRecord *rec, pid_t pid, pid_t tid,
                         const char *comm, bool own) {
        char buf[512];
        Decision dp, dt;
        int r = 0;

        if (!m->rules)
                return add(x, "rules", "none loaded");
        ThreadFacts process_only = { .rules = m->rules, .process = rec, .caps = kernel_caps() };
        if (decide_rule(&process_only, &dp) >= 0)
                r = add(x, "process rule", "%s", shown_rule(own, dp.match.user_rule, verdict(&dp, buf, sizeof buf)));
        if (r < 0 || control_decide(m, rec, tid, comm, &dt) < 0)
                return r;
        r = add(x, "thread verdict", "%s", shown_rule(own, dt.match.user_rule, verdict(&dt, buf, sizeof buf)));
        if (r >= 0 && dt.capped && !own && dt.match.limit_user)
                r = add(x, "capped", "to %s by %s", qclass_to_string(dt.class), EXPLAIN_USER_RULE);
        else if (r >= 0 && dt.capped)
                r = add(x, "capped", "to %s by MaxClass at %s:%u", qclass_to_string(dt.class),
                        dt.match.limit_origin.path ?: "?", dt.match.limit_origin.line);
        if (r >= 0 && dt.held)
                r = add(x, "held", "at %s: %s%s (an admin file may set "
                        "[Limits] AllowInteractiveInBackground=yes)",
                        qclass_to_string(dt.class), focus_hold_reason(m, pid, buf, sizeof buf),
                        dt.class == QCLASS_USER_INITIATED ? "; it plays audio" : "");
        return r;
}

/* What qosd did to the thread, or that it does nothing; e may be NULL. */
static int explain_record(Manager *m, Explanation *x, const TaskEntry *e, const TaskAttr *cur, bool own) {
        char buf[512];
        int r;

        if (!e) {
                QClass q = class_from_attr(cur, kernel_caps());
                r = add(x, "qosd", "not managing this thread");
                if (r >= 0)
                        r = add(x, "class now", "%s", q ? qclass_to_string(q) : "custom (no class has these settings)");
                return r;
        }
        r = add(x, "qosd", "%s %s%s", task_state_to_string(e->state), qclass_to_string(e->class),
                e->recovered ? " (recovered after a restart)" : "");
        if (r >= 0)
                r = add(x, "origin", "%s", shown_rule(own, e->origin_private, e->origin ?: ""));
        if (r >= 0)
                r = add(x, "original", "%s", knobs(own, &e->orig, buf, sizeof buf));
        if (r >= 0)
                r = add(x, "set by qosd", "%s", knobs(own, &e->set, buf, sizeof buf));
        if (r >= 0)
                r = explain_knobs(x, e);
        if (r >= 0 && e->state == TASK_FOREIGN)
                r = add(x, "note", "changed by someone else after qosd (renice, chrt, rtkit, "
                        "the program itself); qosd leaves it alone%s",
                        m->settings.on_foreign == FOREIGN_REAPPLY ? " until the next evaluation" : "");
        return r;
}

int explain_thread(Manager *m, pid_t tid, uid_t viewer, Explanation *ret) {
        _cleanup_(process_record_freep) ProcessRecord *rec = NULL;
        Explanation x = {};
        char comm[PROC_COMM_MAX], buf[512];
        TaskAttr cur;
        pid_t pid;
        uint64_t start;
        int r;

        r = proc_tgid(tid, &pid);
        if (r >= 0)
                r = proc_start_time(tid, &start);
        if (r >= 0)
                r = proc_comm(pid, tid, comm);
        if (r >= 0)
                r = task_attr_read(tid, &cur);
        if (r >= 0)
                r = process_record_read(pid, 0, true, &rec);
        if (r < 0)
                return r;
        bool own = explain_may_see(viewer, tid);

        r = add(&x, "thread", "%d (%s)", (int) tid, comm);
        if (r >= 0)
                r = add(&x, "process", "%d (%s) %s", (int) pid, rec->comm,
                        own ? rec->exe ?: "(no executable)" : "executable " EXPLAIN_HIDDEN);
        if (r >= 0 && rec->cmdline && *rec->cmdline)
                r = add(&x, "command line", "%s", shown(own, rec->cmdline));
        if (r >= 0)
                r = add(&x, "user", "%u", (unsigned) rec->uid);
        if (r >= 0 && rec->cgroup)
                r = add(&x, "cgroup", "%s", shown(own, rec->cgroup));
        if (r >= 0 && rec->app_id)
                r = add(&x, "app id", "%s", shown(own, rec->app_id));
        if (r >= 0)
                r = add(&x, "foreground", "%s", focus_state_of(m, pid, buf, sizeof buf));
        if (r < 0)
                goto fail;

        r = explain_rules(m, &x, rec, pid, tid, comm, own);
        if (r < 0)
                goto fail;

        TaskEntry *e = registry_get(&m->tasks, tid);
        if (e && e->start_time != start)
                e = NULL; /* an older task under the same TID */
        r = explain_record(m, &x, e, &cur, own);
        if (r >= 0)
                r = explain_loans(m, &x, pid, tid, start, own);
        if (r >= 0)
                r = add(&x, "now", "%s", knobs(own, &cur, buf, sizeof buf));
        /* Where the class acts: across applications only from qosd's group.
         * It and the unit name the cgroup, which others do not see. */
        if (r >= 0 && kernel_caps()->supported[KNOB_GROUP] &&
            group_describe(tid, e ? e->class : class_from_attr(&cur, kernel_caps()), buf, sizeof buf) >= 0)
                r = add(&x, "group", "%s", shown(own, buf));
        /* On a systemd machine, the share against other applications is the unit's. */
        pid_t tgid;
        if (r >= 0 && proc_tgid(tid, &tgid) >= 0 && units_describe(m, tgid, buf, sizeof buf) >= 0)
                r = add(&x, "unit", "%s", shown(own, buf));
        if (r >= 0 && task_attr_is_realtime(&cur))
                r = add(&x, "note", "%s", action_to_string(ACTION_SKIP_REALTIME));
        if (r < 0)
                goto fail;
        *ret = x;
        return 0;
fail:
        explanation_clear(&x);
        return r;
}

/* The state ListTasks shows: qosd's, and why the class in force is below
 * the one asked for. "held": a request held by the gate or a cap, or a
 * rule's user-interactive held at utility by the gate, until they allow
 * it; "capped": a rule's class lowered by a MaxClass=, for good. */
static const char *row_state(const TaskEntry *e) {
        bool below = qclass_is_valid(e->wanted) && e->class < e->wanted;
        switch (e->state) {
        case TASK_APPLIED:
                return e->held ? "held" : below ? "capped" : "applied";
        case TASK_REQUESTED:
                return below ? "held" : "requested";
        default:
                return task_state_to_string(e->state);
        }
}

int task_row_fill(Manager *m, pid_t pid, pid_t tid, bool own, TaskRow *ret) {
        TaskRow row = { .pid = pid, .tid = tid };
        TaskAttr cur;
        uint64_t start;
        int r;

        r = proc_comm(pid, tid, row.comm);
        if (r >= 0)
                r = proc_start_time(tid, &start);
        if (r >= 0)
                r = task_attr_read(tid, &cur);
        if (r < 0)
                return r;
        knobs(own, &cur, row.knobs, sizeof row.knobs);

        TaskEntry *e = registry_get(&m->tasks, tid);
        if (e && e->start_time == start && e->state != TASK_FOREIGN) {
                row.class = qclass_to_string(e->class);
                row.state = row_state(e);
        } else {
                /* Someone else's settings, or none of qosd's: the class
                 * is what the knobs amount to now. */
                QClass q = class_from_attr(&cur, kernel_caps());
                row.class = q ? qclass_to_string(q) : "custom";
                row.state = e && e->start_time == start ? task_state_to_string(e->state)
                            : task_attr_is_realtime(&cur) ? "realtime"
                                                          : "unmanaged";
        }
        if (e && e->start_time == start)
                snprintf(row.origin, sizeof row.origin, "%s", shown_rule(own, e->origin_private, e->origin ?: ""));
        *ret = row;
        return 0;
}
