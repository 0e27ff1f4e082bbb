/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "lib/lib-lock.h"
#include "core/override-stack.h"
#include "lib/override.h"
#include "core/sched-syscall.h"
#include "core/task-apply.h"
#include "core/task-privilege.h"
#include "lib/thread-apply.h"

typedef struct Entry {
        struct Entry *next;
        pid_t tid;
        OverrideStack stack;
        TaskAttr base;          /* before the first override: what ending the last restores */
        QClass base_class;
        bool have_base;
        unsigned gen;           /* bumped by every push and pop */
        unsigned inflight;      /* pushes and pops whose settle has not finished */
        bool settling;          /* a settle is applying: it applies every newer change too */
        qos_mutex_t *waiting_on;
} Entry;

/* Guarded by LIB_LOCK_OVERRIDE. Few threads have overrides at once, so a
 * small chained hash is plenty. */
#define BUCKETS 64
static Entry *buckets[BUCKETS];
static size_t n_entries;
static unsigned long n_pushes;

static Entry **slot(pid_t tid) {
        Entry **p = &buckets[(unsigned) tid % BUCKETS];
        while (*p && (*p)->tid != tid)
                p = &(*p)->next;
        return p;
}

static Entry *find(pid_t tid) {
        return *slot(tid);
}

static Entry *find_or_add(pid_t tid) {
        Entry **p = slot(tid);
        if (*p)
                return *p;
        Entry *e = calloc(1, sizeof(*e));
        if (!e)
                return NULL;
        e->tid = tid;
        *p = e;
        n_entries++;
        return e;
}

/* An entry lives while anything refers to it. */
static void drop_if_unused(pid_t tid) {
        Entry **p = slot(tid), *e = *p;
        if (!e || e->inflight > 0 || e->waiting_on || !override_stack_empty(&e->stack))
                return;
        *p = e->next;
        n_entries--;
        free(e);
}

/* The thread's own knobs, never its cpu group. Moving a thread between
 * cgroups takes cgroup_threadgroup_rwsem for writing, which waits for an
 * RCU grace period (synchronize_rcu_expedited in rcu_sync_enter): about a
 * scheduler tick here, paid by the waiter before it sleeps and by the
 * owner on its way down - longer than most critical sections, so a loan
 * that moved the group cost more than it gave (docs/inheritance.md). The
 * groups are also qosd's, not the application's (as thread_apply_class). */
static unsigned apply_mask(pid_t tid) {
        return kernel_caps()->privileged ? KNOBS_ALL & ~KNOB_BIT(KNOB_GROUP) : task_unprivileged_knobs(tid == gettid());
}

static int apply(pid_t tid, const TaskAttr *want) {
        return thread_apply_attr(tid, NULL, want, apply_mask(tid));
}

int override_push_locked(pid_t tid, QClass c, qos_override_t **ret) {
        qos_override_t *o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        Entry *e = find_or_add(tid);
        if (!e) {
                free(o);
                return -ENOMEM;
        }
        if (!e->have_base) {
                /* Read here, under the lock, so that two first overrides
                 * racing cannot take each other's change for the base. */
                int r = task_attr_read_knobs(tid, apply_mask(tid), &e->base);
                if (r >= 0 && task_attr_is_realtime(&e->base))
                        r = -EBUSY;
                if (r < 0) {
                        drop_if_unused(tid);
                        free(o);
                        return r;
                }
                e->base_class = class_from_attr(&e->base, kernel_caps());
                e->have_base = true;
        }
        override_stack_push(&e->stack, c);
        n_pushes++;
        e->gen++;
        e->inflight++;
        o->tid = tid;
        o->c = c;
        *ret = o;
        return 0;
}

void override_pop_locked(const qos_override_t *o) {
        Entry *e = find(o->tid);
        /* Every handle's entry lives until the handle is popped. */
        (void) override_stack_pop(&e->stack, o->c);
        e->gen++;
        e->inflight++;
}

int override_settle(pid_t tid) {
        int r = 0;

        lib_lock(LIB_LOCK_OVERRIDE);
        Entry *e = find(tid);
        /* One settle at a time per thread: two applying at once would each
         * read back the other's change and take it for a refusal. The one
         * applying sees the generation moved and applies this change too. */
        while (!e->settling) {
                e->settling = true;
                unsigned gen = e->gen;
                QClass c = override_stack_effective(&e->stack, e->base_class);
                TaskAttr want = e->base;
                if (c != QCLASS_UNSPECIFIED)
                        class_target_attr(c, kernel_caps(), &want);
                lib_unlock(LIB_LOCK_OVERRIDE);

                r = apply(tid, &want);

                lib_lock(LIB_LOCK_OVERRIDE);
                e = find(tid);
                e->settling = false;
                /* The stack moved while this was applying: apply the
                 * newest. A thread that has gone stops the loop. */
                if (e->gen == gen || r == -ESRCH)
                        break;
        }
        e->inflight--;
        if (e->inflight == 0 && override_stack_empty(&e->stack))
                e->have_base = false; /* the base is back: read it afresh next time */
        drop_if_unused(tid);
        lib_unlock(LIB_LOCK_OVERRIDE);
        /* This thread's change, or 0 when the settle already applying
         * takes it over. */
        return r;
}

QClass override_kernel_class(pid_t tid) {
        struct qos_sched_attr sa;
        TaskAttr a;

        if (sys_sched_getattr(tid, &sa) < 0)
                return QCLASS_UNSPECIFIED;
        task_attr_from_sched_attr(&sa, kernel_caps(), &a);
        return class_from_attr(&a, kernel_caps());
}

QClass override_class_locked(pid_t tid) {
        QClass now = override_kernel_class(tid);
        Entry *e = find(tid);
        return e ? qclass_max(now, override_stack_top(&e->stack)) : now;
}

int override_set_waiting_locked(pid_t tid, qos_mutex_t *m) {
        Entry *e = m ? find_or_add(tid) : find(tid);
        if (!e)
                return m ? -ENOMEM : 0;
        e->waiting_on = m;
        drop_if_unused(tid);
        return 0;
}

qos_mutex_t *override_waiting_on_locked(pid_t tid) {
        Entry *e = find(tid);
        return e ? e->waiting_on : NULL;
}

size_t override_registry_size(void) {
        lib_lock(LIB_LOCK_OVERRIDE);
        size_t n = n_entries;
        lib_unlock(LIB_LOCK_OVERRIDE);
        return n;
}

void override_count_loan_locked(void) {
        n_pushes++;
}

unsigned long override_registry_pushes(void) {
        lib_lock(LIB_LOCK_OVERRIDE);
        unsigned long n = n_pushes;
        lib_unlock(LIB_LOCK_OVERRIDE);
        return n;
}

int override_end_direct(qos_override_t *o) {
        lib_lock(LIB_LOCK_OVERRIDE);
        override_pop_locked(o);
        lib_unlock(LIB_LOCK_OVERRIDE);
        int r = override_settle(o->tid);
        free(o);
        return r;
}
