/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Chains of locks, walked by qosd for lenders that cannot raise threads
 * themselves. A loan that names its lock (BeginLockOverride) says "this
 * waiter sleeps on lock L, held by this owner"; while it lasts it is an
 * edge out of the waiter. A loan whose owner has such an edge goes on to
 * that edge's owner, and on, OVERRIDE_CHAIN_MAX owners at most, and never
 * twice to one thread: a cycle (a deadlock) stops where it closes.
 *
 * Edges are only ever followed inside one process: every loan's waiter
 * and owner were checked to be the caller's own threads (overrides-dbus.c),
 * and an edge counts only for a record of the same process and user, and
 * only for the pinned task it names (TID and start time), so no chain
 * reaches a thread the caller could not have lent to directly. */
#include <inttypes.h>
#include <string.h>

#include "core/log.h"
#include "overrides/override-internal.h"

static bool waits(const Record *e, pid_t tid, uint64_t start) {
        return e->waiter == tid && e->waiter_start == start;
}

/* The lock o sleeps on, as r's process told qosd last. */
static Record *edge_from(Overrides *ov, const Record *r, const Owner *o) {
        Record *e = pid_map_get(&ov->edges, o->ref.tid);
        if (!e || e->tgid != r->tgid || e->client->uid != r->client->uid ||
            !waits(e, o->ref.tid, o->ref.start_time) || e->owner->gone)
                return NULL;
        return e;
}

/* o is already on r's chain (or is its lender). */
static bool on_chain(const Record *r, const Hop *hops, size_t n, const Owner *o) {
        if (o == r->owner || waits(r, o->ref.tid, o->ref.start_time))
                return true;
        for (size_t i = 0; i < n; i++)
                if (hops[i].owner == o)
                        return true;
        return false;
}

static bool has_owner(const Hop *hops, size_t n, const Owner *o) {
        for (size_t i = 0; i < n; i++)
                if (hops[i].owner == o)
                        return true;
        return false;
}

static QClass effective(const Owner *o) {
        return override_stack_effective(&o->stack, o->base_class);
}

/* After a push or pop on o that moved it from was: act only if what it
 * should run at changed (or free it if nothing is left on it), so that a
 * change of one wait costs one apply per owner whose class moves, not one
 * per loan whose chain passes there. */
static void owner_moved(Overrides *ov, Owner *o, QClass was) {
        if (override_stack_empty(&o->stack) || effective(o) != was)
                owner_settle(ov, o);
}

void chain_refresh(Overrides *ov, Record *r) {
        Hop want[OVERRIDE_CHAIN_MAX - 1], old[OVERRIDE_CHAIN_MAX - 1];
        QClass was_want[OVERRIDE_CHAIN_MAX - 1], was_old[OVERRIDE_CHAIN_MAX - 1];
        size_t n = 0, n_old = r->n_hops;
        const Owner *cur = r->owner;

        while (n < OVERRIDE_CHAIN_MAX - 1) {
                Record *e = edge_from(ov, r, cur);
                if (!e || on_chain(r, want, n, e->owner))
                        break;
                want[n++] = (Hop) { .owner = e->owner, .via = cur->ref.tid, .lock = e->lock };
                cur = e->owner;
        }
        if (n == n_old && memcmp(want, r->hops, n * sizeof *want) == 0)
                return;
        memcpy(old, r->hops, n_old * sizeof *old);
        for (size_t i = 0; i < n; i++)
                was_want[i] = effective(want[i].owner);
        for (size_t i = 0; i < n_old; i++)
                was_old[i] = effective(old[i].owner);
        /* Push the new chain before popping the old one, so that an owner
         * on both is never left without overrides (and freed) in between. */
        for (size_t i = 0; i < n; i++)
                override_stack_push(&want[i].owner->stack, r->c);
        memcpy(r->hops, want, n * sizeof *want);
        r->n_hops = n;
        for (size_t i = 0; i < n_old; i++)
                (void) override_stack_pop(&old[i].owner->stack, r->c);
        for (size_t i = 0; i < n; i++)
                if (!has_owner(old, n_old, want[i].owner))
                        owner_moved(ov, want[i].owner, was_want[i]);
        for (size_t i = 0; i < n_old; i++)
                if (!has_owner(want, n, old[i].owner))
                        owner_moved(ov, old[i].owner, was_old[i]);
        log_debug("override %" PRIu64 " of thread %d: chain of %zu owner(s) beyond %d", r->id, r->waiter, n,
                  r->owner->ref.tid);
}

static bool passes(const Record *r, pid_t via) {
        if (r->owner->ref.tid == via)
                return true;
        for (size_t i = 0; i < r->n_hops; i++)
                if (r->hops[i].owner->ref.tid == via)
                        return true;
        return false;
}

void chain_refresh_through(Overrides *ov, pid_t tgid, pid_t via) {
        for (Record *r = ov->records; r; r = r->next)
                if (r->tgid == tgid && passes(r, via))
                        chain_refresh(ov, r);
}

void chain_edge_add(Overrides *ov, Record *r) {
        int e = pid_map_put(&ov->edges, r->waiter, r);
        if (e < 0)
                log_warning_errno(e, "override %" PRIu64 ": cannot note the lock thread %d sleeps on: %m", r->id,
                                  r->waiter);
}

/* Drop r's hops from index i on. */
static void chain_cut(Overrides *ov, Record *r, size_t i) {
        QClass was[OVERRIDE_CHAIN_MAX - 1];
        size_t n = r->n_hops;
        r->n_hops = i;
        for (size_t j = i; j < n; j++) {
                was[j] = effective(r->hops[j].owner);
                (void) override_stack_pop(&r->hops[j].owner->stack, r->c);
        }
        for (size_t j = i; j < n; j++)
                owner_moved(ov, r->hops[j].owner, was[j]);
}

void chain_record_ending(Overrides *ov, Record *r) {
        if (pid_map_get(&ov->edges, r->waiter) == r) {
                Record *older = NULL;
                pid_map_remove(&ov->edges, r->waiter);
                for (Record *e = ov->records; e; e = e->next)
                        if (e != r && e->lock && e->tgid == r->tgid && waits(e, r->waiter, r->waiter_start) &&
                            (!older || e->id > older->id))
                                older = e;
                if (older)
                        chain_edge_add(ov, older);
        }
        chain_cut(ov, r, 0);
}

void chain_forget_owner(Overrides *ov, Owner *o) {
        for (Record *r = ov->records; r; r = r->next)
                for (size_t i = 0; i < r->n_hops; i++)
                        if (r->hops[i].owner == o) {
                                chain_cut(ov, r, i);
                                break;
                        }
}
