/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/control-internal.h"
#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "core/knob-table.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/proc.h"
#include "decide/decide.h"
#include "focus/focus.h"
#include "focus/relayed.h"
#include "overrides/override-book.h"

/* The kernel resets a user class's per-thread knobs in a new task
 * (reset-on-fork) but has nothing like it for cgroups: the task starts in
 * its creator's group with utility's knobs. Such a group is the creator's,
 * not the task's own: a task whose knobs match its group's class was not
 * reset. */
static bool group_only_inherited(const TaskAttr *cur) {
        const ClassKnobs *k = class_knobs(cur->group);
        return k && k->reset_on_fork && class_from_attr(cur, kernel_caps()) != cur->group;
}

/* What reset-on-fork leaves: the kernel resets policy, nice, slice and
 * clamps in a new task, but the task keeps its creator's I/O priority,
 * timer slack, CPUs and group. */
#define KNOBS_KEPT_ACROSS_FORK \
        (KNOB_BIT(KNOB_IOPRIO) | KNOB_BIT(KNOB_TIMER_SLACK) | KNOB_BIT(KNOB_CPUS) | KNOB_BIT(KNOB_GROUP))
#define KNOBS_KEPT_PER_THREAD (KNOB_BIT(KNOB_IOPRIO) | KNOB_BIT(KNOB_TIMER_SLACK))

/* The per-thread knobs in which a new task still carries the user class it
 * was created in: those it shares with its creator's class where the
 * creator is known to be in one. Else its I/O priority and timer slack
 * when both are a user class's: a new thread's creator may be any thread
 * of its process, which the kernel does not name. */
static unsigned kept_of_user_class(const TaskAttr *cur, const TaskEntry *creator) {
        const unsigned kept = KNOBS_KEPT_ACROSS_FORK & ~KNOB_BIT(KNOB_GROUP);

        if (creator && creator->state != TASK_FOREIGN && creator->set.reset_on_fork)
                return kept & ~task_attr_diff(cur, &creator->set, kept);
        for (QClass c = 0; c < _QCLASS_MAX; c++) {
                const ClassKnobs *k = class_knobs(c);
                TaskAttr t;

                if (!k || !k->reset_on_fork)
                        continue;
                class_target_attr(c, kernel_caps(), &t);
                if (task_attr_diff(cur, &t, KNOBS_KEPT_PER_THREAD) == 0)
                        return KNOBS_KEPT_PER_THREAD;
        }
        return 0;
}

/* When nothing else gives such a task a class, what it kept of a user
 * class goes back to what its creator had before qosd (or has now, if
 * qosd never changed it), as its scheduler knobs did; the group to where
 * the creator came from (the root if unknown). */
static void reset_inherited(const TaskRef *ref, const TaskAttr *cur, pid_t creator_tid, const TaskEntry *creator) {
        bool known = creator && creator->state != TASK_FOREIGN;
        TaskAttr want = *cur, before = *cur;
        unsigned mask = 0, kept;
        ApplyResult res;

        if (group_only_inherited(cur)) {
                want.group = known ? creator->orig.group : QCLASS_UNSPECIFIED;
                mask |= KNOB_BIT(KNOB_GROUP);
        }
        kept = kept_of_user_class(cur, creator);
        if (kept && known)
                before = creator->orig;
        else if (kept && (creator_tid <= 0 || task_attr_read_knobs(creator_tid, kept, &before) < 0))
                kept = 0;
        if (before.timer_slack_ns == 0) /* unknown: 0 would mean "as at its creation" */
                kept &= ~KNOB_BIT(KNOB_TIMER_SLACK);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (kept & KNOB_BIT(k))
                        knob_row(k)->copy(&want, &before);
        mask |= kept;
        mask &= task_attr_diff(&want, cur, mask);
        if (mask == 0)
                return;
        if (task_ref_apply(ref, &want, mask, &res) >= 0 && res.failed)
                log_debug("thread %d: cannot give back what it kept of its creator's class: %s", (int) ref->tid,
                          strerror(-apply_result_error(&res)));
}

/* The entry of the task that created a new one, if it is still that
 * task's. After lost events an entry may outlive its task, the TID since
 * reused: its class and original belong to a task that is gone, and are
 * dropped. A creator that cannot be read (it exited) is not trusted either. */
static TaskEntry *creator_entry(Manager *m, pid_t creator) {
        TaskEntry *c = creator > 0 ? registry_get(&m->tasks, creator) : NULL;
        uint64_t start;
        int r;

        if (!c)
                return NULL;
        r = proc_start_time(creator, &start);
        if (r < 0)
                return NULL;
        if (start != c->start_time) {
                control_forget(m, creator);
                return NULL;
        }
        return c;
}

/* The original of a new task: what its creator had before qosd, because
 * the values it inherited are qosd's. Else what the task has now, without
 * a group it only inherited. */
static TaskAttr original_of(Manager *m, pid_t creator, const TaskAttr *cur) {
        TaskEntry *c = creator_entry(m, creator);
        if (c && c->state != TASK_FOREIGN)
                return c->orig;
        TaskAttr o = *cur;
        if (group_only_inherited(cur))
                o.group = QCLASS_UNSPECIFIED;
        return o;
}

/* After a crash: the previous run's record of this very task, registered
 * (and marked as someone else's if it changed since), or NULL. */
static TaskEntry *take_recovered(Manager *m, const TaskRef *ref, pid_t tgid, const TaskAttr *cur) {
        StateRecord *rec = pid_map_get(&m->recovered, ref->tid);
        TaskEntry *e;

        if (!rec || rec->start_time != ref->start_time || registry_add(&m->tasks, ref->tid, tgid, ref->start_time, &e) < 0)
                return NULL;
        e->orig = rec->orig;
        e->set = rec->set;
        e->class = rec->class;
        e->recovered = true;
        e->state = TASK_APPLIED;
        free(pid_map_remove(&m->recovered, ref->tid));
        m->counters.recovered++;
        if (decide_changed_by_someone_else(e, cur, kernel_caps()))
                control_mark_foreign(m, e, cur);
        return e;
}

/* The gate of the moment, asked by decide() only for user-interactive. */
static bool holds_interactive(const void *userdata, pid_t pid) {
        return focus_holds_interactive(userdata, pid);
}

static bool plays_audio(const void *userdata, pid_t pid) {
        return relayed_contains_pid(userdata, RELAYED_AUDIO, pid);
}

/* What decide() knows of any thread of p: the rules, the gate, the kernel. */
/* The main thread of a game gamemode runs. */
static bool game_main(const Manager *m, const ProcessRecord *p, pid_t tid) {
        uint64_t start = p->start_time;
        if (!m->relayed[RELAYED_GAMES] || tid != p->pid || (start == 0 && proc_start_time(p->pid, &start) < 0))
                return false;
        return relayed_contains(m, RELAYED_GAMES, p->pid, start);
}

static ThreadFacts facts_of(Manager *m, const ProcessRecord *p, pid_t tid, const char *thread_name) {
        return (ThreadFacts) {
                .rules = m->rules,
                .process = p,
                .thread_name = thread_name,
                .game_main = game_main(m, p, tid),
                .holds_interactive = holds_interactive,
                .plays_audio = plays_audio,
                .holds_userdata = m,
                .on_foreign = m->settings.on_foreign,
                .caps = kernel_caps(),
        };
}

int control_decide(Manager *m, const ProcessRecord *p, pid_t tid, const char *thread_name, Decision *ret) {
        ThreadFacts f = facts_of(m, p, tid, thread_name);
        return decide_rule(&f, ret);
}

/* ACTION_UNCHANGED: nothing to write, nothing to log again. */
static int keep(Manager *m, TaskEntry *e, const Verdict *v, const char *comm, const char *origin) {
        e->state = TASK_APPLIED;
        e->wanted = v->rule.wanted;
        e->held = v->rule.held;
        memcpy(e->comm, comm, sizeof e->comm);
        m->counters.unchanged++;
        return registry_set_origin(e, v->rule.match.app, origin, v->rule.match.user_rule);
}

/* ACTION_APPLY: the original on disk first (write-ahead), then the class. */
static int apply(Manager *m, const ProcessRecord *p, const TaskRef *ref, TaskEntry *e, const TaskAttr *cur,
                 const Verdict *v, const char *comm, const char *origin, pid_t creator) {
        pid_t tid = ref->tid;
        ApplyResult res;
        int r;

        if (!e) {
                r = registry_add(&m->tasks, tid, p->pid, ref->start_time, &e);
                if (r < 0)
                        return r;
                e->orig = original_of(m, creator, cur);
        }
        e->class = v->rule.class;
        e->wanted = v->rule.wanted;
        e->held = v->rule.held;
        e->state = TASK_APPLIED;
        e->set = v->want;
        memcpy(e->comm, comm, sizeof e->comm);
        r = registry_set_origin(e, v->rule.match.app, origin, v->rule.match.user_rule);
        if (r < 0)
                return r;
        state_file_append(&m->state, e);

        r = control_apply_or_rebase(m, ref, &v->want, KNOBS_ALL, &res);
        if (r == -ESRCH || r == -EBUSY) {
                if (r == -EBUSY)
                        m->counters.realtime_skipped++;
                else
                        m->counters.vanished++;
                control_forget(m, tid);
                return 0;
        }
        if (r < 0) {
                control_forget(m, tid);
                return log_warning_errno(r, "thread %d: cannot apply %s: %m", (int) tid,
                                         qclass_to_string(v->rule.class));
        }
        control_note_result(m, e, &v->want, &res);
        log_debug("thread %d (%s, process %d): %s from %s", (int) tid, comm, (int) p->pid,
                  qclass_to_string(v->rule.class), origin);
        if (v->none_efficient)
                log_info("thread %d (%s, process %d): none of the CPUs it may run on is efficient; "
                         "it stays where it was", (int) tid, comm, (int) p->pid);
        return 0;
}

int control_thread(Manager *m, const ProcessRecord *p, pid_t tid, pid_t creator) {
        _cleanup_task_ref_ TaskRef ref = TASK_REF_NULL;
        char comm[PROC_COMM_MAX], origin[512];
        TaskAttr cur;
        Verdict v;
        int r;

        r = task_ref_open(tid, 0, &ref);
        if (r >= 0)
                r = proc_comm(p->pid, tid, comm);
        if (r >= 0)
                r = task_ref_read_attr(&ref, &cur);
        if (r < 0)
                return control_vanished(m, tid);
        (void) override_base_view(m, &ref, &cur);
        TaskEntry *e = control_entry_for(m, &ref);
        if (!e)
                e = take_recovered(m, &ref, p->pid, &cur); /* the previous run (killed) changed it? */

        ThreadFacts f = facts_of(m, p, tid, comm);
        TaskAttr orig = e ? e->orig : original_of(m, creator, &cur);
        f.now = &cur;
        f.entry = e;
        f.orig = &orig;
        r = decide(&f, &v);
        if (r < 0)
                return log_error_errno(r, "matching thread %d failed: %m", (int) tid);
        decision_origin(&v.rule, origin, sizeof origin);
        /* ForeignChange=reapply: the change is said, then taken back. */
        if (v.newly_foreign && v.action != ACTION_FOREIGN && !control_foreign_unless_exiting(m, e, &ref, &cur))
                return 0;

        switch (v.action) {
        case ACTION_NONE:
                if (!e)
                        reset_inherited(&ref, &cur, creator, creator_entry(m, creator));
                return 0;
        case ACTION_RESTORE:
                return control_restore(m, e, "no rule matches any more");
        case ACTION_SKIP_REALTIME:
                m->counters.realtime_skipped++;
                if (e)
                        control_mark_foreign(m, e, &cur);
                return 0;
        case ACTION_FOREIGN:
                (void) control_foreign_unless_exiting(m, e, &ref, &cur);
                return 0;
        case ACTION_UNCHANGED:
                return keep(m, e, &v, comm, origin);
        case ACTION_APPLY:
                return apply(m, p, &ref, e, &cur, &v, comm, origin, creator);
        case ACTION_KEEP_REQUEST:
        case ACTION_LEAVE_FOREIGN:
        case _ACTION_MAX:
                break;
        }
        return 0;
}

int control_fork(Manager *m, const ProcessRecord *p, pid_t tid, uint64_t start_time, pid_t creator) {
        TaskEntry *c = creator_entry(m, creator), *e;
        Decision d;
        int r;

        if (!c || c->state != TASK_APPLIED || c->set.reset_on_fork)
                return 0;
        r = control_decide(m, p, tid, c->comm, &d);
        if (r < 0 || d.class != c->class)
                return 0;
        r = registry_add(&m->tasks, tid, p->pid, start_time, &e);
        if (r < 0)
                return r;
        e->class = c->class;
        e->wanted = c->wanted;
        e->held = c->held;
        e->state = TASK_APPLIED;
        e->orig = c->orig;
        e->set = c->set;
        e->applied = c->applied;
        e->failed = c->failed;
        e->unsupported = c->unsupported;
        memcpy(e->error, c->error, sizeof e->error);
        memcpy(e->comm, c->comm, sizeof e->comm);
        m->counters.unchanged++;
        state_file_append(&m->state, e);
        return registry_set_origin(e, c->app, c->origin, c->origin_private) < 0 ? -ENOMEM : 1;
}
int control_inherit(Manager *m, pid_t tid, pid_t tgid, pid_t creator) {
        _cleanup_task_ref_ TaskRef ref = TASK_REF_NULL;
        TaskEntry *c = creator_entry(m, creator), *e;
        TaskAttr cur;
        int r;

        /* Without a managed creator, a new thread of a process some of
         * whose threads qosd manages may still have been created by one of
         * them (the kernel names no creating thread): what it kept of a
         * user class is given back. A process qosd manages nothing of
         * costs no read. */
        if (c ? c->state == TASK_FOREIGN : !registry_has_process(&m->tasks, tgid))
                return 0;
        r = task_ref_open(tid, 0, &ref);
        if (r >= 0)
                r = task_ref_read_attr(&ref, &cur);
        if (r < 0) {
                m->counters.vanished++;
                return 0;
        }
        if (!c) {
                reset_inherited(&ref, &cur, creator, NULL);
                return 0;
        }
        /* A creator with reset-on-fork (the user classes) hands down the
         * kernel defaults, not its class: nothing of qosd's to track, once
         * the task is out of its creator's group. */
        if (task_attr_diff(&cur, &c->set, class_identity_knobs(kernel_caps())) != 0) {
                reset_inherited(&ref, &cur, creator, c);
                return 0;
        }
        _cleanup_free_ char *origin = NULL;
        if (asprintf(&origin, "inherited from %d (%s)", (int) creator, c->origin ?: "") < 0)
                return -ENOMEM;
        r = registry_add(&m->tasks, tid, tgid, ref.start_time, &e);
        if (r < 0)
                return r;
        e->class = c->class;
        e->wanted = c->wanted;
        e->held = c->held;
        e->orig = c->orig;
        e->set = cur;
        e->applied = c->applied;
        e->unsupported = c->unsupported;
        e->state = TASK_INHERITED;
        m->counters.inherited++;
        state_file_append(&m->state, e);
        return registry_set_origin(e, c->app, origin, c->origin_private) < 0 ? -ENOMEM : 1;
}
