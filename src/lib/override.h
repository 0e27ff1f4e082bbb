/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The override registry of this process: for every thread that has
 * overrides applied directly (the caller has CAP_SYS_NICE), its base
 * attributes as they were before the first override, and the stack of
 * active ones. qos-mutex.c also keeps here which qos_mutex_t each
 * contended waiter sleeps on, to follow chains.
 *
 * Locking: everything marked _locked runs under LIB_LOCK_OVERRIDE. The
 * kernel is never called with that lock held for longer than a read:
 * changes are made by override_settle() after the lock is dropped, so a
 * thread that has just lowered itself to SCHED_IDLE cannot be preempted
 * while it holds the lock every contended waiter needs. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/qclass.h"
#include "qos/qos.h"

struct qos_override {
        struct qos_override *next;      /* in a qos_mutex_t's lent list */
        pid_t tid;                      /* the thread raised */
        QClass c;                       /* to this class */
        uint64_t daemon_id;             /* held by qosd (0: not, or not yet) */
        bool brokered;                  /* lent through qosd, not applied here */
        bool pending;                   /* brokered, qosd not answered yet */
        bool orphaned;                  /* detached by the unlock while pending:
                                         * the lender ends and frees it */
};

/* Push an override of class c on tid; tid's base is read first if this is
 * its first one. The change is made by the override_settle(tid) the
 * caller must call after dropping the lock. -ESRCH, -EBUSY (real-time),
 * -ENOMEM. */
int override_push_locked(pid_t tid, QClass c, qos_override_t **ret);

/* Take o off its thread's stack (o itself is freed by the caller); again
 * followed by one override_settle(o->tid). */
void override_pop_locked(const qos_override_t *o);

/* Bring tid's settings to what its stack says now, repeating until no
 * other push or pop raced with the change. Without the lock. Returns the
 * error of the change, or 0.
 * Settles of one thread never overlap: one that finds another applying
 * leaves its change to that one, which sees the stack moved and applies
 * again, so a thread can, for the length of one sched_setattr, still have
 * a loan that has just been ended - never longer, and never for good. */
int override_settle(pid_t tid);

/* End an override applied here (not brokered): pop it, settle its thread
 * and free it. Returns the settle's result. Takes the lock itself. */
int override_end_direct(qos_override_t *o);

/* tid's class as the kernel reports it (one sched_getattr), overrides not
 * counted unless already applied; needs no lock. */
QClass override_kernel_class(pid_t tid);

/* tid's class now: the higher of the top of its stack and what the
 * kernel reports (one sched_getattr). */
QClass override_class_locked(pid_t tid);

/* The qos_mutex_t tid sleeps on (NULL: none); set it before sleeping and
 * clear it after. -ENOMEM if tid has no entry and none can be made. */
int override_set_waiting_locked(pid_t tid, qos_mutex_t *m);
qos_mutex_t *override_waiting_on_locked(pid_t tid);

/* How many threads have an entry (overrides, or a contended wait). For
 * tests: 0 once everything has ended. */
size_t override_registry_size(void);

/* How many overrides were begun since the process started, here or
 * through qosd (for tests); qos-mutex.c counts the latter. */
unsigned long override_registry_pushes(void);
void override_count_loan_locked(void);
