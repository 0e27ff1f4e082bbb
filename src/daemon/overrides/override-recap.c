/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loans follow their lenders. A loan lends at most what its waiter has
 * (overrides-dbus.c caps it when it begins); when what waiters have may have
 * changed (the foreground gate moved, the rules were reloaded, a request
 * was granted or held), every loan is capped again. Else a program in
 * front could lend its class to its own threads, itself included, and
 * keep it once the focus moves on.
 *
 * What a waiter has may come from loans itself (it waits while others
 * wait on it), so the classes are found as the least fixed point, from
 * the bottom up: loans that lend to each other (a cycle, or a thread that
 * lends to itself) never keep up a class that none of them has of its
 * own. A waiter that has exited lends nothing. */
#include <inttypes.h>
#include <stdlib.h>

#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "core/macro.h"
#include "overrides/override-internal.h"
#include "overrides/overrides.h"

QClass override_lendable(QClass c) {
        /* Settings that are no class (a timer slack or a nice value set by
         * hand) count as below every class, as in the override stack. */
        return qclass_is_valid(c) ? c : QCLASS_BACKGROUND;
}

/* What the waiter has of its own: its base if it has overrides, else what
 * the kernel shows now. */
static QClass waiter_own(Overrides *ov, const Record *r) {
        Owner *o = owner_of(ov, r->waiter, r->waiter_start);
        TaskRef ref = TASK_REF_NULL;
        TaskAttr cur;
        int e;

        if (o)
                return override_lendable(o->base_class);
        e = task_ref_open(r->waiter, r->waiter_start, &ref);
        if (e >= 0)
                e = task_ref_read_attr(&ref, &cur);
        task_ref_close(&ref);
        return e < 0 ? QCLASS_BACKGROUND : override_lendable(class_from_attr(&cur, kernel_caps()));
}

static QClass effective(const Owner *o) {
        return override_stack_effective(&o->stack, o->base_class);
}

static void raise_to(Owner *o, QClass c) {
        o->recap_has = qclass_max(o->recap_has, c);
}

/* One round: what each owner has with the classes found so far, and what
 * each loan may lend from it. True if a loan went up. */
static bool recap_round(Overrides *ov, Record **recs, const QClass *own, QClass *found, size_t n) {
        bool up = false;

        for (Owner *o = ov->owners; o; o = o->next)
                o->recap_has = override_lendable(o->base_class);
        for (size_t i = 0; i < n; i++) {
                raise_to(recs[i]->owner, found[i]);
                for (size_t h = 0; h < recs[i]->n_hops; h++)
                        raise_to(recs[i]->hops[h].owner, found[i]);
        }
        for (size_t i = 0; i < n; i++) {
                Record *r = recs[i];
                Owner *w = owner_of(ov, r->waiter, r->waiter_start);
                /* A waiter that names its lock lends its own class only
                 * (overrides-dbus.c); one that does not, what it runs at. */
                QClass has = r->lock || !w ? own[i] : w->recap_has;
                QClass c = qclass_min(r->asked, has);
                if (c > found[i]) {
                        found[i] = c;
                        up = true;
                }
        }
        return up;
}

/* Move r to class c on its owner and its chain. */
static void record_move(Record *r, QClass c) {
        override_stack_push(&r->owner->stack, c);
        (void) override_stack_pop(&r->owner->stack, r->c);
        for (size_t h = 0; h < r->n_hops; h++) {
                override_stack_push(&r->hops[h].owner->stack, c);
                (void) override_stack_pop(&r->hops[h].owner->stack, r->c);
        }
        r->c = c;
}

void overrides_recap(Manager *m, const char *why) {
        Overrides *ov = m->overrides;
        size_t n = 0, moved = 0;

        for (Record *r = ov ? ov->records : NULL; r; r = r->next)
                n++;
        if (n == 0)
                return;
        _cleanup_free_ Record **recs = calloc(n, sizeof *recs);
        _cleanup_free_ QClass *own = calloc(n, sizeof *own), *found = calloc(n, sizeof *found);
        if (!recs || !own || !found) {
                log_warning("loans: out of memory, not capped again (%s)", why);
                return;
        }
        size_t i = 0;
        for (Record *r = ov->records; r; r = r->next, i++) {
                recs[i] = r;
                own[i] = waiter_own(ov, r);
                found[i] = QCLASS_BACKGROUND;
        }
        while (recap_round(ov, recs, own, found, n))
                ;
        for (Owner *o = ov->owners; o; o = o->next)
                o->recap_was = effective(o);
        for (i = 0; i < n; i++)
                if (found[i] != recs[i]->c) {
                        log_debug("override %" PRIu64 " of thread %d: %s now (%s)", recs[i]->id, recs[i]->waiter,
                                  qclass_to_string(found[i]), why);
                        record_move(recs[i], found[i]);
                        moved++;
                }
        if (moved == 0)
                return;
        /* Every owner keeps as many loans as before: none is freed here. */
        for (Owner *o = ov->owners; o; o = o->next)
                if (effective(o) != o->recap_was)
                        owner_settle(ov, o);
}
