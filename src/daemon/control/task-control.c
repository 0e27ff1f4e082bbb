/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "focus/focus.h"
#include "core/class-relpri.h"
#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "core/group.h"
#include "core/log.h"
#include "core/macro.h"
#include "overrides/override-book.h"
#include "decide/policy.h"
#include "core/proc.h"
#include "control/task-control.h"
#include "core/task-ref.h"

/* On a thread with loans what the rules decide is its base; the loans stay
 * on top until they end (override_base_view, override_rebase). */
static int apply_or_rebase(Manager *m, const TaskRef *ref, const TaskAttr *want, unsigned mask,
                           ApplyResult *res) {
        int r = override_rebase(m, ref, want, res);
        return r == 0 ? task_ref_apply(ref, want, mask, res) : r < 0 ? r : 0;
}

static void task_ref_closep(TaskRef *r) {
        task_ref_close(r);
}
#define _cleanup_task_ref_ _cleanup_(task_ref_closep)

/* The knobs a read-back compares: all the kernel has. */
static unsigned compare_mask(void) {
        const KernelCaps *caps = kernel_caps();
        unsigned m = 0;
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (caps->supported[k])
                        m |= KNOB_BIT(k);
        return m;
}

/* What "already in its class" compares for a task that reads cur: the
 * group of a thread in another manager's cgroup is not qosd's to set (the
 * apply refuses it), so it does not count, or such a thread would be
 * applied again on every scan. */
static unsigned settable_mask(const TaskAttr *cur) {
        return compare_mask() & ~(cur->group_foreign ? KNOB_BIT(KNOB_GROUP) : 0);
}

/* The kernel resets a user class's per-thread knobs in a new task
 * (reset-on-fork) but has nothing like it for cgroups: the task starts in
 * its creator's group with utility's knobs. Such a group is the creator's,
 * not the task's own: a task whose knobs match its group's class was not
 * reset. */
static bool group_only_inherited(const TaskAttr *cur) {
        const ClassKnobs *k = class_knobs(cur->group);
        return k && k->reset_on_fork && class_from_attr(cur, kernel_caps()) != cur->group;
}

/* When nothing else gives such a task a class, it goes where its creator
 * came from (the root if unknown), as its knobs did. */
static void reset_inherited_group(const TaskRef *ref, const TaskAttr *cur, const TaskEntry *creator) {
        TaskAttr want = *cur;
        ApplyResult res;

        if (!group_only_inherited(cur))
                return;
        want.group = creator && creator->state != TASK_FOREIGN ? creator->orig.group : QCLASS_UNSPECIFIED;
        if (want.group == cur->group)
                return;
        if (task_ref_apply(ref, &want, KNOB_BIT(KNOB_GROUP), &res) >= 0 && res.failed)
                log_debug("thread %d: cannot leave its creator's group: %s", (int) ref->tid,
                          strerror(-apply_result_error(&res)));
}

/* Someone else changed the task after qosd did: renice, chrt, rtkit,
 * gamemode, the program itself. qosd respects it (by default) and says so. */
static bool changed_by_someone_else(const TaskEntry *e, const TaskAttr *cur) {
        return task_attr_diff(cur, &e->set, compare_mask()) != 0 ||
               cur->reset_on_fork != e->set.reset_on_fork;
}

/* The thread is in class c by the knobs that define a class (policy, nice,
 * slice, reset-on-fork), or on its way there. Who put it there does not
 * matter when c is what the rules say now: the preload library in the
 * program applies the same rules itself when a thread is renamed, at the
 * same moment as qosd's event. The preload never moves a thread between
 * cgroups, so a group other than the one qosd set is someone else's. */
static bool has_verdict(const TaskEntry *e, const TaskAttr *cur, QClass c) {
        const KernelCaps *caps = kernel_caps();
        const ClassKnobs *k = class_knobs(c);
        TaskAttr transit;

        if (!k || cur->reset_on_fork != k->reset_on_fork)
                return false;
        if ((compare_mask() & KNOB_BIT(KNOB_GROUP)) &&
            task_attr_diff(cur, &e->set, KNOB_BIT(KNOB_GROUP)) != 0)
                return false;
        return class_from_attr(cur, caps) == c ||
               (task_apply_transit_attr(c, caps, &transit) &&
                task_attr_diff(cur, &transit, class_identity_knobs(caps)) == 0);
}

static void mark_foreign(Manager *m, TaskEntry *e, const TaskAttr *cur) {
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

void control_forget(Manager *m, pid_t tid) {
        TaskEntry *e = registry_get(&m->tasks, tid);
        if (!e)
                return;
        if (e->state != TASK_FOREIGN)
                state_file_forget(&m->state, e->tid, e->start_time);
        registry_remove(&m->tasks, tid);
}

/* A thread that is not as qosd or the rules left it: someone else's
 * change, marked so (true), unless it is on its way out of do_exit(),
 * which takes it out of its cgroup: then it is forgotten (false). */
static bool foreign_unless_exiting(Manager *m, TaskEntry *e, const TaskRef *ref, const TaskAttr *cur) {
        if (task_ref_exiting(ref)) {
                m->counters.vanished++;
                control_forget(m, e->tid);
                return false;
        }
        mark_foreign(m, e, cur);
        return true;
}

/* The entry for tid if it still describes the pinned task; a stale entry
 * (the TID was recycled while qosd missed the exit) is dropped unrestored:
 * its task is gone and the new one never had qosd's settings from it. */
static TaskEntry *entry_for(Manager *m, const TaskRef *ref) {
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

/* After a crash: the previous run's record of this very task. */
static bool take_recovered(Manager *m, TaskEntry *e) {
        StateRecord *rec = pid_map_get(&m->recovered, e->tid);
        if (!rec || rec->start_time != e->start_time)
                return false;
        e->orig = rec->orig;
        e->set = rec->set;
        e->class = rec->class;
        e->recovered = true;
        free(pid_map_remove(&m->recovered, e->tid));
        m->counters.recovered++;
        return true;
}

int control_decide(Manager *m, const ProcessRecord *p, const char *thread_name, Decision *ret) {
        int r = policy_decide(m->rules, p, thread_name, ret);
        if (r >= 0 && ret->class == QCLASS_USER_INTERACTIVE)
                policy_gate_interactive(ret, focus_holds_interactive(m, p->pid));
        return r;
}

int control_thread(Manager *m, const ProcessRecord *p, pid_t tid, pid_t creator) {
        _cleanup_task_ref_ TaskRef ref = TASK_REF_NULL;
        char comm[PROC_COMM_MAX], origin[512];
        TaskAttr cur, want;
        ApplyResult res;
        Decision d;
        int r;

        r = task_ref_open(tid, 0, &ref);
        if (r < 0) {
                m->counters.vanished++;
                control_forget(m, tid);
                return 0;
        }
        TaskEntry *e = entry_for(m, &ref);
        if (e && e->state == TASK_REQUESTED)
                return 0; /* the program's own request beats the rules (the broker applies their caps) */

        r = proc_comm(p->pid, tid, comm);
        if (r >= 0)
                r = task_ref_read_attr(&ref, &cur);
        if (r < 0) {
                m->counters.vanished++;
                control_forget(m, tid);
                return 0;
        }
        (void) override_base_view(m, &ref, &cur);
        r = control_decide(m, p, comm, &d);
        if (r < 0)
                return log_error_errno(r, "matching thread %d failed: %m", (int) tid);

        if (!e) {
                /* Not registered yet: maybe the previous run (killed) changed it. */
                if (pid_map_get(&m->recovered, tid)) {
                        r = registry_add(&m->tasks, tid, p->pid, ref.start_time, &e);
                        if (r < 0)
                                return r;
                        if (take_recovered(m, e)) {
                                e->state = TASK_APPLIED;
                                if (changed_by_someone_else(e, &cur))
                                        mark_foreign(m, e, &cur);
                        } else {
                                registry_remove(&m->tasks, tid);
                                e = NULL;
                        }
                }
        }

        if (d.class == QCLASS_UNSPECIFIED) {
                /* No rule (any more): a thread qosd changed goes back. */
                if (e && e->state != TASK_INHERITED)
                        return control_restore(m, e, "no rule matches any more");
                if (!e)
                        reset_inherited_group(&ref, &cur, creator_entry(m, creator));
                return 0;
        }
        if (task_attr_is_realtime(&cur)) {
                /* rtkit or the user made it real-time: never touched. */
                m->counters.realtime_skipped++;
                if (e)
                        mark_foreign(m, e, &cur);
                return 0;
        }
        /* The preload applies the rules without the foreground gate (it
         * cannot know it): a thread it made user-interactive is the rules'
         * doing, and is held below like any other. */
        if (e && e->state != TASK_FOREIGN && changed_by_someone_else(e, &cur) &&
            !has_verdict(e, &cur, d.held ? QCLASS_USER_INTERACTIVE : d.class) &&
            !foreign_unless_exiting(m, e, &ref, &cur))
                return 0;
        if (e && e->state == TASK_FOREIGN) {
                if (m->settings.on_foreign == FOREIGN_LEAVE)
                        return 0;
                e->state = TASK_APPLIED; /* ForeignChange=reapply: take it back */
        }

        class_target_attr(d.class, kernel_caps(), &want);
        decision_origin(&d, origin, sizeof origin);
        if (e && e->class == d.class && task_attr_diff(&cur, &want, settable_mask(&cur)) == 0 &&
            cur.reset_on_fork == want.reset_on_fork) {
                /* Already right (a rescan, a reload with the same verdict, or
                 * recovery after a crash): no system call, nothing re-logged. */
                e->state = TASK_APPLIED;
                e->wanted = d.wanted;
                memcpy(e->comm, comm, sizeof e->comm);
                m->counters.unchanged++;
                return registry_set_origin(e, d.match.app, origin, d.match.user_rule);
        }

        bool fresh = !e;
        if (fresh) {
                r = registry_add(&m->tasks, tid, p->pid, ref.start_time, &e);
                if (r < 0)
                        return r;
                e->orig = original_of(m, creator, &cur);
        }
        e->class = d.class;
        e->wanted = d.wanted;
        e->state = TASK_APPLIED;
        e->set = want;
        memcpy(e->comm, comm, sizeof e->comm);
        r = registry_set_origin(e, d.match.app, origin, d.match.user_rule);
        if (r < 0)
                return r;
        /* Write-ahead: the original is on disk before the task changes. */
        state_file_append(&m->state, e);

        r = apply_or_rebase(m, &ref, &want, KNOBS_ALL, &res);
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
                                         qclass_to_string(d.class));
        }
        record_result(m, e, &res);
        if (task_attr_diff(&res.after, &want, KNOBS_ALL) != 0)
                state_file_append(&m->state, e); /* what really took, for the read-back */
        if (res.changed)
                m->counters.applied++;
        else
                m->counters.unchanged++;
        log_debug("thread %d (%s, process %d): %s from %s", (int) tid, comm, (int) p->pid,
                  qclass_to_string(d.class), origin);
        return 0;
}

int control_request(Manager *m, pid_t tid, uint64_t start_time, pid_t tgid, QClass c, int relpri,
                    const char *origin, bool origin_private, bool renew) {
        _cleanup_task_ref_ TaskRef ref = TASK_REF_NULL;
        TaskAttr cur, want;
        ApplyResult res;
        int r;

        r = task_ref_open(tid, start_time, &ref);
        if (r >= 0)
                r = task_ref_read_attr(&ref, &cur);
        if (r < 0) {
                control_forget(m, tid);
                return -ESRCH;
        }
        (void) override_base_view(m, &ref, &cur);
        if (task_attr_is_realtime(&cur))
                return -EBUSY;
        TaskEntry *e = entry_for(m, &ref);
        if (!renew && (!e || e->state != TASK_REQUESTED || changed_by_someone_else(e, &cur))) {
                if (e && e->state == TASK_REQUESTED)
                        mark_foreign(m, e, &cur);
                return 0;
        }
        if (!e) {
                r = registry_add(&m->tasks, tid, tgid, ref.start_time, &e);
                if (r < 0)
                        return r;
                e->orig = cur;
        } else if (e->state == TASK_FOREIGN)
                e->orig = cur; /* what someone else set is what to go back to */
        class_target_attr_relpri(c, relpri, kernel_caps(), &want);
        e->class = c;
        e->state = TASK_REQUESTED;
        e->set = want;
        proc_comm(tgid, tid, e->comm);
        r = registry_set_origin(e, NULL, origin, origin_private);
        if (r < 0)
                return r;
        state_file_append(&m->state, e);

        r = apply_or_rebase(m, &ref, &want, KNOBS_ALL, &res);
        if (r < 0) {
                control_forget(m, tid);
                return r;
        }
        record_result(m, e, &res);
        if (task_attr_diff(&res.after, &want, KNOBS_ALL) != 0)
                state_file_append(&m->state, e);
        if (res.changed)
                m->counters.applied++;
        else
                m->counters.unchanged++;
        return 1;
}

int control_fork(Manager *m, const ProcessRecord *p, pid_t tid, uint64_t start_time, pid_t creator) {
        TaskEntry *c = creator_entry(m, creator), *e;
        Decision d;
        int r;

        if (!c || c->state != TASK_APPLIED || c->set.reset_on_fork)
                return 0;
        r = control_decide(m, p, c->comm, &d);
        if (r < 0 || d.class != c->class)
                return 0;
        r = registry_add(&m->tasks, tid, p->pid, start_time, &e);
        if (r < 0)
                return r;
        e->class = c->class;
        e->wanted = c->wanted;
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

        if (!c || c->state == TASK_FOREIGN)
                return 0;
        r = task_ref_open(tid, 0, &ref);
        if (r >= 0)
                r = task_ref_read_attr(&ref, &cur);
        if (r < 0) {
                m->counters.vanished++;
                return 0;
        }
        /* A creator with reset-on-fork (the user classes) hands down the
         * kernel defaults, not its class: nothing of qosd's to track, once
         * the task is out of its creator's group. */
        if (task_attr_diff(&cur, &c->set, class_identity_knobs(kernel_caps())) != 0) {
                reset_inherited_group(&ref, &cur, c);
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
        e->orig = c->orig;
        e->set = cur;
        e->applied = c->applied;
        e->unsupported = c->unsupported;
        e->state = TASK_INHERITED;
        m->counters.inherited++;
        state_file_append(&m->state, e);
        return registry_set_origin(e, c->app, origin, c->origin_private) < 0 ? -ENOMEM : 1;
}

int control_restore(Manager *m, TaskEntry *e, const char *why) {
        _cleanup_task_ref_ TaskRef ref = TASK_REF_NULL;
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
            (changed_by_someone_else(e, &cur) && !has_verdict(e, &cur, e->class))) {
                if (foreign_unless_exiting(m, e, &ref, &cur))
                        registry_remove(&m->tasks, tid);
                return 0;
        }
        r = apply_or_rebase(m, &ref, &e->orig, KNOBS_ALL & ~e->unsupported, &res);
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
