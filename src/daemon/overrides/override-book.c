/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "overrides/override-internal.h"
#include "overrides/overrides.h"
#include "core/pid-map.h"
#include "core/proc.h"

Overrides *override_book(Manager *m) {
        if (!m->overrides) {
                m->overrides = calloc(1, sizeof(Overrides));
                if (m->overrides)
                        m->overrides->log = &m->loans_state;
        }
        return m->overrides;
}

/* Apply what the owner should have now, only to the task it pinned: checked
 * before (a TID is reused only after its task is gone, so a live pin means
 * the TID is still that task's) and after (it may exit in between; then
 * what was applied went nowhere, or to a task whose TID was reused within
 * that instant, which no unprivileged process can arrange). */
int owner_apply_result(Owner *o, ApplyResult *ret) {
        QClass c = override_stack_effective(&o->stack, o->base_class);
        TaskAttr want = o->base;
        ApplyResult local, *res = ret ?: &local;
        int r = task_ref_alive(&o->ref);
        if (r >= 0) {
                if (c != QCLASS_UNSPECIFIED) {
                        class_target_attr(c, kernel_caps(), &want);
                        /* The CPUs stay the owner's own: a loan moves no thread. */
                        want.cpus = o->base.cpus;
                }
                owner_log(o, &want);
                r = task_ref_apply(&o->ref, &want, KNOBS_ALL, res);
        }
        if (r == -ESRCH)
                o->gone = true;
        if (r < 0)
                return r;
        /* What the rules compare with to tell a loan from someone else's
         * change (override-view.c). */
        o->now = res->after;
        o->applied = true;
        if (task_attr_diff(&res->after, &want, KNOBS_ALL) != 0)
                owner_log(o, &res->after); /* what really took, for the recovery's comparison */
        return apply_result_error(res);
}

int owner_apply(Owner *o) {
        return owner_apply_result(o, NULL);
}

static void owner_free(Overrides *ov, Owner *o);

void owner_settle(Overrides *ov, Owner *o) {
        if (!o->gone) {
                int e = owner_apply(o);
                if (e < 0 && e != -ESRCH)
                        log_warning_errno(e, "override of thread %d: cannot apply: %m", o->ref.tid);
        }
        if (override_stack_empty(&o->stack))
                owner_free(ov, o);
}

Owner *owner_of(const Overrides *ov, pid_t tid, uint64_t start_time) {
        Owner *o = ov ? pid_map_get(&ov->by_tid, tid) : NULL;
        return o && o->ref.start_time == start_time && !o->gone ? o : NULL;
}

static void owner_free(Overrides *ov, Owner *o) {
        for (Owner **p = &ov->owners; *p; p = &(*p)->next)
                if (*p == o) {
                        *p = o->next;
                        break;
                }
        if (pid_map_get(&ov->by_tid, o->ref.tid) == o)
                pid_map_remove(&ov->by_tid, o->ref.tid);
        if (o->logged) {
                state_file_forget(o->log, o->ref.tid, o->ref.start_time);
                state_file_maybe_rewrite(o->log, 0); /* the live owners, when the log has grown */
        }
        task_ref_close(&o->ref);
        free(o);
}

static void client_free(Overrides *ov, OverrideClient *c) {
        for (OverrideClient **p = &ov->clients; *p; p = &(*p)->next)
                if (*p == c) {
                        *p = c->next;
                        break;
                }
        sd_bus_track_unref(c->track);
        free(c->sender);
        free(c);
}

static UserTally *user_find(Overrides *ov, uid_t uid) {
        for (UserTally *u = ov->users; u; u = u->next)
                if (u->uid == uid)
                        return u;
        return NULL;
}

static void user_release(Overrides *ov, uid_t uid) {
        UserTally *u = user_find(ov, uid);
        if (!u || --u->n > 0)
                return;
        for (UserTally **p = &ov->users; *p; p = &(*p)->next)
                if (*p == u) {
                        *p = u->next;
                        break;
                }
        free(u);
}

/* End one override; restore its owner if it was the last and restore is
 * set. -ESRCH when the owner turned out gone (nothing restored). */
static int record_end(Overrides *ov, Record **p, bool restore) {
        Record *r = *p;
        Owner *o = r->owner;
        int e = 0;
        *p = r->next;
        chain_record_ending(ov, r);
        (void) override_stack_pop(&o->stack, r->c);
        r->client->n--;
        user_release(ov, r->client->uid);
        if (restore && !o->gone) {
                e = owner_apply(o);
                if (e < 0 && e != -ESRCH)
                        log_warning_errno(e, "override of thread %d: cannot restore: %m", o->ref.tid);
        }
        if (o->gone)
                e = -ESRCH;
        if (override_stack_empty(&o->stack))
                owner_free(ov, o);
        /* The waiter no longer sleeps on r's lock: the chains that went
         * on from it stop there (or follow an older wait of it). */
        if (r->lock)
                chain_refresh_through(ov, r->tgid, r->waiter);
        free(r);
        return e;
}

/* End every record for which match() says so. */
static void end_matching(Overrides *ov, bool (*match)(const Record *r, const void *what), const void *what,
                         bool restore) {
        Record **p = &ov->records;
        while (*p)
                if (match(*p, what))
                        (void) record_end(ov, p, restore);
                else
                        p = &(*p)->next;
}

static bool record_of_owner(const Record *r, const void *what) {
        return r->owner == what;
}

static bool record_of_client(const Record *r, const void *what) {
        return r->client == what;
}

/* The owner exited: its overrides end, and nothing is restored (its TID
 * may name another task by now). */
static void owner_drop(Overrides *ov, Owner *o) {
        log_debug("thread %d exited with overrides: dropped", o->ref.tid);
        o->gone = true;
        chain_forget_owner(ov, o);
        end_matching(ov, record_of_owner, o, false);
}

/* The owner's task has exited or is exiting. The EXIT event is sent from
 * inside do_exit(), before a thread pidfd turns readable and while /proc
 * still shows the task with its start time (a process's zombie keeps it
 * until reaped): the pin alone would call it alive. */
static bool owner_exited(const Owner *o) {
        return task_ref_exiting(&o->ref);
}

void overrides_task_exited(Manager *m, pid_t tid) {
        Overrides *ov = m->overrides;
        Owner *o = ov ? pid_map_get(&ov->by_tid, tid) : NULL;
        /* The event may be late: the TID may be a new task's already, with
         * overrides of its own. Only the task says whose exit this was. */
        if (o && owner_exited(o))
                owner_drop(ov, o);
}

void overrides_sweep(Manager *m) {
        Overrides *ov = m->overrides;
        if (!ov)
                return;
        for (Owner *o = ov->owners, *next; o; o = next) {
                next = o->next;
                if (owner_exited(o))
                        owner_drop(ov, o); /* frees o and no other owner */
        }
}

static int on_client_gone(sd_bus_track *t, void *userdata) {
        OverrideClient *c = userdata;
        Overrides *ov = c->manager->overrides;
        log_debug("%s left the bus with %zu override(s): ended", c->sender, c->n);
        end_matching(ov, record_of_client, c, true);
        client_free(ov, c);
        return 0;
}

static int user_take(Overrides *ov, uid_t uid) {
        UserTally *u = user_find(ov, uid);
        if (!u) {
                u = calloc(1, sizeof *u);
                if (!u)
                        return -ENOMEM;
                u->uid = uid;
                u->next = ov->users;
                ov->users = u;
        }
        u->n++;
        return 0;
}

int override_client_get(Manager *m, sd_bus_message *msg, uid_t uid, OverrideClient **ret) {
        Overrides *ov = m->overrides;
        const char *sender = sd_bus_message_get_sender(msg);
        if (!sender)
                return -EINVAL;
        for (OverrideClient *c = ov->clients; c; c = c->next)
                if (strcmp(c->sender, sender) == 0) {
                        *ret = c;
                        return 0;
                }
        OverrideClient *c = calloc(1, sizeof(*c));
        if (!c || !(c->sender = strdup(sender))) {
                free(c);
                return -ENOMEM;
        }
        c->manager = m;
        int r = sd_bus_track_new(m->bus, &c->track, on_client_gone, c);
        if (r >= 0)
                r = sd_bus_track_add_sender(c->track, msg);
        if (r < 0) {
                sd_bus_track_unref(c->track);
                free(c->sender);
                free(c);
                return r;
        }
        c->uid = uid;
        c->next = ov->clients;
        ov->clients = c;
        *ret = c;
        return 0;
}

/* The lowest free descriptor is what the next open() gets: once that
 * reaches the reserve, overrides are holding their share. Descriptors
 * above it are only ever taken by the rest of qosd. */
static bool fd_in_reserve(int fd) {
        struct rlimit rl;
        if (fd < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
                return false;
        return (rlim_t) fd + OVERRIDE_FD_RESERVE >= rl.rlim_cur;
}

OverrideLimit override_limit(Manager *m, const OverrideClient *c) {
        UserTally *u = user_find(m->overrides, c->uid);
        if (c->n >= OVERRIDES_PER_CONNECTION)
                return OVERRIDE_LIMIT_CONNECTION;
        if (u && u->n >= OVERRIDES_PER_USER)
                return OVERRIDE_LIMIT_USER;
        return OVERRIDE_LIMIT_NONE;
}

void override_count_limited(Manager *m) {
        m->overrides->limited++;
}

/* The owner for the pinned task; a new one takes over *ref. */
static int owner_get(Overrides *ov, TaskRef *ref, Owner **ret) {
        Owner *o = pid_map_get(&ov->by_tid, ref->tid);
        if (o && o->ref.start_time == ref->start_time && !o->gone) {
                task_ref_close(ref);
                *ret = o;
                return 0;
        }
        if (o)
                owner_drop(ov, o); /* the TID's earlier task, whose exit was not seen yet */
        if (fd_in_reserve(ref->pidfd))
                return -EMFILE;
        o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        int r = task_ref_read_attr(ref, &o->base);
        if (r >= 0 && task_attr_is_realtime(&o->base))
                r = -EBUSY;
        if (r >= 0)
                r = pid_map_put(&ov->by_tid, ref->tid, o);
        if (r < 0) {
                free(o);
                return r;
        }
        o->ref = *ref;
        *ref = TASK_REF_NULL;
        o->log = ov->log;
        o->base_class = class_from_attr(&o->base, kernel_caps());
        o->next = ov->owners;
        ov->owners = o;
        *ret = o;
        return 0;
}

int override_begin(Manager *m, OverrideClient *client, TaskRef *owner, const OverrideLoan *loan,
                   uint64_t *ret_id, pid_t *ret_hops, size_t *ret_n_hops) {
        Overrides *ov = m->overrides;
        Owner *o;
        int r = owner_get(ov, owner, &o);
        task_ref_close(owner); /* the owner's pin now, or not needed */
        if (r < 0)
                return r;
        Record *rec = calloc(1, sizeof(*rec));
        if (!rec || user_take(ov, client->uid) < 0) {
                free(rec);
                if (override_stack_empty(&o->stack))
                        owner_free(ov, o);
                return -ENOMEM;
        }
        *rec = (Record) { .id = ++ov->next_id, .client = client, .owner = o, .asked = loan->asked, .c = loan->c,
                          .tgid = loan->tgid,
                          .waiter = loan->waiter, .waiter_start = loan->waiter_start };
        rec->next = ov->records;
        ov->records = rec;
        client->n++;
        override_stack_push(&o->stack, loan->c);
        r = owner_apply(o);
        if (r < 0) {
                (void) record_end(ov, &ov->records, true);
                return r;
        }
        /* Its own chain first (the owner may itself sleep on a lock qosd
         * knows of), then, if it names a lock, the chains that reach its
         * waiter go on through it. */
        chain_refresh(ov, rec);
        if (loan->lock) {
                rec->lock = loan->lock;
                chain_edge_add(ov, rec);
                chain_refresh_through(ov, rec->tgid, rec->waiter);
        }
        *ret_id = rec->id;
        if (ret_n_hops) {
                for (size_t i = 0; i < rec->n_hops; i++)
                        ret_hops[i] = rec->hops[i].owner->ref.tid;
                *ret_n_hops = rec->n_hops;
        }
        return 0;
}

int override_end(Manager *m, const char *sender, uint64_t id, pid_t *ret_tid) {
        for (Record **p = m->overrides ? &m->overrides->records : NULL; p && *p; p = &(*p)->next)
                if ((*p)->id == id && sender && strcmp((*p)->client->sender, sender) == 0) {
                        *ret_tid = (*p)->owner->ref.tid;
                        return record_end(m->overrides, p, true);
                }
        return -ENOENT;
}

size_t overrides_count(const Manager *m) {
        size_t n = 0;
        for (Record *r = m->overrides ? m->overrides->records : NULL; r; r = r->next)
                n++;
        return n;
}

uint64_t overrides_limited(const Manager *m) {
        return m->overrides ? m->overrides->limited : 0;
}

void overrides_free(Manager *m) {
        Overrides *ov = m->overrides;
        if (!ov)
                return;
        while (ov->records)
                (void) record_end(ov, &ov->records, true);
        while (ov->clients)
                client_free(ov, ov->clients);
        pid_map_clear(&ov->by_tid);
        pid_map_clear(&ov->edges);
        free(ov);
        m->overrides = NULL;
}
