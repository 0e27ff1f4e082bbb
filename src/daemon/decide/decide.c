/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/class-table.h"
#include "core/task-apply.h"
#include "decide/decide.h"

unsigned decide_compare_mask(const KernelCaps *caps) {
        unsigned m = 0;
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (caps->supported[k])
                        m |= KNOB_BIT(k);
        return m;
}

/* What "already in its class" compares for a task that reads now: the
 * group of a thread in another manager's cgroup is not qosd's to set (the
 * apply refuses it), so it does not count, or such a thread would be
 * applied again on every scan. */
static unsigned settable_mask(const TaskAttr *now, const KernelCaps *caps) {
        return decide_compare_mask(caps) & ~(now->group_foreign ? KNOB_BIT(KNOB_GROUP) : 0);
}

bool decide_changed_by_someone_else(const TaskEntry *e, const TaskAttr *now, const KernelCaps *caps) {
        return task_attr_diff(now, &e->set, decide_compare_mask(caps)) != 0 ||
               now->reset_on_fork != e->set.reset_on_fork;
}

/* The preload never moves a thread between cgroups, so a group other than
 * the one qosd set is someone else's. */
bool decide_has_class(const TaskEntry *e, const TaskAttr *now, QClass c, const KernelCaps *caps) {
        const ClassKnobs *k = class_knobs(c);
        TaskAttr transit;

        if (!k || now->reset_on_fork != k->reset_on_fork)
                return false;
        if ((decide_compare_mask(caps) & KNOB_BIT(KNOB_GROUP)) &&
            task_attr_diff(now, &e->set, KNOB_BIT(KNOB_GROUP)) != 0)
                return false;
        return class_from_attr(now, caps) == c ||
               (task_apply_transit_attr(c, caps, &transit) &&
                task_attr_diff(now, &transit, class_identity_knobs(caps)) == 0);
}

/* A game no rule gives a class: its main thread user-initiated, which any
 * program may ask for itself, up to the app's MaxClass=. */
static void game_default(Decision *d) {
        QClass c = QCLASS_USER_INITIATED;
        if (d->match.max_class != QCLASS_UNSPECIFIED && d->match.max_class < c) {
                c = d->match.max_class;
                d->capped = true;
        }
        d->class = c;
        d->wanted = QCLASS_USER_INITIATED;
        d->game = true;
}

int decide_rule(const ThreadFacts *f, Decision *ret) {
        int r = policy_decide(f->rules, f->process, f->thread_name, ret);
        if (r >= 0 && ret->class == QCLASS_UNSPECIFIED && f->game_main)
                game_default(ret);
        if (r < 0 || ret->class != QCLASS_USER_INTERACTIVE)
                return r;
        pid_t pid = f->process->pid;
        bool outside = f->holds_interactive ? f->holds_interactive(f->holds_userdata, pid) : f->outside_foreground;
        bool audio = outside && (f->plays_audio ? f->plays_audio(f->holds_userdata, pid) : f->playing_audio);
        policy_gate_interactive(ret, outside, audio);
        return r;
}

int decide(const ThreadFacts *f, Verdict *ret) {
        const TaskEntry *e = f->entry;
        Verdict v = {};
        int r;

        r = decide_rule(f, &v.rule);
        if (r < 0)
                return r;
        if (e && e->state == TASK_REQUESTED)
                v.action = ACTION_KEEP_REQUEST;
        else if (v.rule.class == QCLASS_UNSPECIFIED)
                /* A thread that only carries its creator's class goes with the creator. */
                v.action = e && e->state != TASK_INHERITED ? ACTION_RESTORE : ACTION_NONE;
        else if (task_attr_is_realtime(f->now))
                v.action = ACTION_SKIP_REALTIME; /* rtkit or the user made it real-time */
        /* The preload applies the rules without the foreground gate (it
         * cannot know it): a thread it made user-interactive is the rules'
         * doing, and is held like any other. */
        else if ((v.newly_foreign = e && e->state != TASK_FOREIGN &&
                                    decide_changed_by_someone_else(e, f->now, f->caps) &&
                                    !decide_has_class(e, f->now, v.rule.held ? QCLASS_USER_INTERACTIVE : v.rule.class,
                                                      f->caps)) &&
                 f->on_foreign == FOREIGN_LEAVE)
                v.action = ACTION_FOREIGN;
        else if (e && e->state == TASK_FOREIGN && f->on_foreign == FOREIGN_LEAVE)
                v.action = ACTION_LEAVE_FOREIGN;
        else {
                v.reclaim = v.newly_foreign || (e && e->state == TASK_FOREIGN);
                class_target_attr(v.rule.class, f->caps, &v.want);
                /* Within the CPUs it had before qosd: never wider. */
                task_attr_place(&v.want, f->orig ?: e ? &e->orig : f->now, f->caps, &v.none_efficient);
                /* Already right (a rescan, a reload with the same verdict, or
                 * recovery after a crash): no system call. */
                bool same = e && e->class == v.rule.class &&
                            task_attr_diff(f->now, &v.want, settable_mask(f->now, f->caps)) == 0 &&
                            f->now->reset_on_fork == v.want.reset_on_fork;
                v.action = same ? ACTION_UNCHANGED : ACTION_APPLY;
        }
        *ret = v;
        return 0;
}

const char *action_to_string(Action a) {
        switch (a) {
        case ACTION_NONE:
                return "nothing to do: no rule, and nothing of qosd's to undo";
        case ACTION_KEEP_REQUEST:
                return "keeps the class its program asked for (a request beats the rules)";
        case ACTION_RESTORE:
                return "back to its original: no rule matches any more";
        case ACTION_SKIP_REALTIME:
                return "real-time or deadline thread: qosd never touches it";
        case ACTION_FOREIGN:
                return "changed by someone else after qosd: left alone from now on";
        case ACTION_LEAVE_FOREIGN:
                return "changed by someone else after qosd: left alone (ForeignChange=leave)";
        case ACTION_UNCHANGED:
                return "already in its class";
        case ACTION_APPLY:
                return "gets its class";
        case _ACTION_MAX:
                break;
        }
        return "?";
}
