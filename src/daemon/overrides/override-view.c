/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The overrides as the rest of qosd sees them: a thread with overrides is,
 * to the rules, SetThreadClass and restores, its base; what they decide
 * becomes the new base, and the overrides stay on top until they end.
 * Explain and ListLoans read who lent what to whom here. */
#include <errno.h>
#include <stdlib.h>

#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "overrides/override-internal.h"

static Owner *owner_pinned(Manager *m, const TaskRef *ref) {
        return owner_of(m->overrides, ref->tid, ref->start_time);
}

bool override_base_view(Manager *m, const TaskRef *ref, TaskAttr *cur) {
        Owner *o = owner_pinned(m, ref);
        if (!o || !o->applied || task_attr_diff(cur, &o->now, KNOBS_ALL) != 0 ||
            cur->reset_on_fork != o->now.reset_on_fork)
                return false;
        *cur = o->base;
        return true;
}

int override_rebase(Manager *m, const TaskRef *ref, const TaskAttr *want, ApplyResult *res) {
        Owner *o = owner_pinned(m, ref);
        if (!o)
                return 0;
        o->base = *want;
        o->base_class = class_from_attr(want, kernel_caps());
        *res = (ApplyResult) {};
        /* A knob the kernel refused is in res, as for any apply. */
        if (owner_apply_result(o, res) == -ESRCH)
                return -ESRCH;
        /* What the thread is set to, for the read-back of the rules, is its
         * base: what it has once the overrides end. */
        res->after = *want;
        return 1;
}

QClass override_own_class(Manager *m, const TaskRef *ref, const TaskAttr *cur) {
        Owner *o = owner_pinned(m, ref);
        return o ? o->base_class : class_from_attr(cur, kernel_caps());
}

static LoanInfo loan_info(const Record *r, const Owner *o, pid_t via, uint64_t lock, Overrides *ov) {
        const Owner *lender = owner_of(ov, r->waiter, r->waiter_start);
        return (LoanInfo) { .pid = r->tgid, .owner = o->ref.tid, .lender = r->waiter, .via = via, .lock = lock,
                            .c = r->c, .base_class = o->base_class,
                            .lender_class = lender ? lender->base_class : r->c };
}

static bool wanted(const Owner *o, pid_t tid, uint64_t start) {
        return tid == 0 || (o->ref.tid == tid && o->ref.start_time == start);
}

int override_loans(Manager *m, pid_t tid, uint64_t start, LoanInfo **ret, size_t *ret_n) {
        Overrides *ov = m->overrides;
        LoanInfo *list = NULL;
        size_t n = 0;
        for (Record *r = ov ? ov->records : NULL; r; r = r->next)
                for (size_t i = 0; i <= r->n_hops; i++) {
                        const Owner *o = i == 0 ? r->owner : r->hops[i - 1].owner;
                        if (o->gone || !wanted(o, tid, start))
                                continue;
                        LoanInfo *l = realloc(list, (n + 1) * sizeof *l);
                        if (!l) {
                                free(list);
                                return -ENOMEM;
                        }
                        list = l;
                        list[n++] = i == 0 ? loan_info(r, o, 0, r->lock, ov)
                                           : loan_info(r, o, r->hops[i - 1].via, r->hops[i - 1].lock, ov);
                }
        *ret = list;
        *ret_n = n;
        return 0;
}

int override_owner_state(Manager *m, pid_t tid, uint64_t start, TaskAttr *ret_base, QClass *ret_base_class,
                         QClass *ret_now) {
        Owner *o = owner_of(m->overrides, tid, start);
        if (!o)
                return -ENOENT;
        *ret_base = o->base;
        *ret_base_class = o->base_class;
        *ret_now = qclass_max(o->base_class, override_stack_top(&o->stack));
        return 0;
}
