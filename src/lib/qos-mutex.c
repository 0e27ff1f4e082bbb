/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qos_mutex_t. The word is 0 (unlocked) or the owner's TID, with
 * MUTEX_WAITERS set while anyone may sleep on it - the layout of the
 * kernel's PI futexes (FUTEX_WAITERS, FUTEX_TID_MASK), without asking the
 * kernel to do anything with it. Lock is CAS 0 -> TID, unlock an exchange
 * with 0 that calls the kernel only if the waiters bit was set.
 *
 * Lending: a waiter that is about to sleep on word value w (owner|WAITERS)
 * takes LIB_LOCK_OVERRIDE, checks that the word still is w, and pushes an
 * override on the owner onto the mutex's lent list. The owner's unlock
 * exchanges the word first and takes the lock after, to empty the list.
 * So a lender that still sees w under the lock is certain the owner's
 * unlock will find its override; one that sees anything else lends
 * nothing and looks again. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/broker-client.h"
#include "lib/futex.h"
#include "core/kernel-caps.h"
#include "lib/lib-lock.h"
#include "core/macro.h"
#include "lib/override.h"
#include "qos/qos.h"

#define MUTEX_WAITERS 0x80000000u   /* FUTEX_WAITERS */
#define MUTEX_TID_MASK 0x3fffffffu  /* FUTEX_TID_MASK */

/* gettid() is a system call; the fast path reads the TID from here. A
 * forked child's thread has a new TID, so fork forgets it. initial-exec:
 * one %fs-relative load, where the default model for a shared library
 * calls __tls_get_addr() on every lock (4 bytes of static TLS, which
 * glibc reserves room for also when libqos is dlopen()ed). */
static _Thread_local pid_t tid_cache __attribute__((tls_model("initial-exec")));
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void forget_tid(void) {
        tid_cache = 0;
}

static void register_atfork(void) {
        (void) pthread_atfork(NULL, NULL, forget_tid);
}

static inline pid_t self_tid(void) {
        if (__builtin_expect(tid_cache == 0, 0)) {
                pthread_once(&atfork_once, register_atfork);
                tid_cache = gettid();
        }
        return tid_cache;
}

static inline unsigned load_word(qos_mutex_t *m) {
        /* Relaxed: every decision taken on it is confirmed by a CAS, by
         * the kernel's compare in futex_wait, or under LIB_LOCK_OVERRIDE. */
        return __atomic_load_n(&m->__word, __ATOMIC_RELAXED);
}

int qos_mutex_init(qos_mutex_t *m) {
        *m = (qos_mutex_t) QOS_MUTEX_INITIALIZER;
        return 0;
}

int qos_mutex_destroy(qos_mutex_t *m) {
        return load_word(m) != 0 ? -EBUSY : 0;
}

/* Lend through qosd: the call is made without LIB_LOCK_OVERRIDE, so the
 * owner may unlock meanwhile; it then leaves the handle to us. lock: what
 * this thread sleeps on, held by o's owner (NULL for a further hop). The
 * first hop's reply says which further owners qosd reached along the
 * chain it knows (covered); those cost no call of their own, and their
 * handles hold nothing to end: qosd ends its chain with the first loan,
 * or where a wait on it ends. */
static void lend_brokered(qos_override_t *o, qos_mutex_t *lock, pid_t *covered, size_t *n_covered) {
        uint64_t id = 0;
        QClass lent;
        int r = -EALREADY;
        bool reached = false;
        for (size_t i = 0; i < *n_covered; i++)
                reached |= covered[i] == o->tid;
        if (!reached && lock)
                r = broker_begin_override(gettid(), o->tid, o->c, (uint64_t) (uintptr_t) lock, &id, &lent,
                                          covered, n_covered);
        else if (!reached) {
                pid_t none[QOS_MUTEX_CHAIN_MAX - 1];
                size_t n_none;
                r = broker_begin_override(gettid(), o->tid, o->c, 0, &id, &lent, none, &n_none);
        }
        lib_lock(LIB_LOCK_OVERRIDE);
        bool orphaned = o->orphaned;
        o->pending = false;
        o->daemon_id = r >= 0 ? id : 0;
        lib_unlock(LIB_LOCK_OVERRIDE);
        if (orphaned) {
                if (r >= 0)
                        (void) broker_end_override(id);
                free(o);
        }
}

static void end_lent(qos_override_t *o) {
        if (o->brokered) {
                if (o->daemon_id != 0)
                        (void) broker_end_override(o->daemon_id);
        } else
                (void) override_settle(o->tid);
        free(o);
}

/* Before sleeping on word value w: say where we sleep, and lend our class
 * to the owner, and along the chain of owners that themselves wait. */
static void lend(qos_mutex_t *m, pid_t self, unsigned w, bool *waiting) {
        bool direct = kernel_caps()->privileged;
        /* What to settle after the lock is dropped. The owner's unlock may
         * free a direct handle at once, so only its TID is kept; a brokered
         * one is pending, which keeps it alive until lend_brokered(). */
        qos_override_t *hops[QOS_MUTEX_CHAIN_MAX];
        pid_t tids[QOS_MUTEX_CHAIN_MAX];
        size_t n = 0;

        lib_lock(LIB_LOCK_OVERRIDE);
        if (!*waiting)
                *waiting = override_set_waiting_locked(self, m) >= 0;
        if (load_word(m) == w) {
                QClass mine = override_class_locked(self);
                qos_mutex_t *cur = m;
                pid_t owner = (pid_t) (w & MUTEX_TID_MASK);
                while (n < QOS_MUTEX_CHAIN_MAX) {
                        /* An owner whose settings match no class was set up
                         * by hand: libqos does not know what "above" it is. */
                        QClass theirs = override_class_locked(owner);
                        if (theirs == QCLASS_UNSPECIFIED || theirs >= mine)
                                break;
                        qos_override_t *o = NULL;
                        if (direct) {
                                if (override_push_locked(owner, mine, &o) < 0)
                                        break;
                        } else {
                                o = calloc(1, sizeof(*o));
                                if (!o)
                                        break;
                                *o = (qos_override_t) { .tid = owner, .c = mine, .brokered = true, .pending = true };
                                override_count_loan_locked();
                        }
                        o->next = cur->__lent;
                        cur->__lent = o;
                        hops[n] = o;
                        tids[n++] = owner;

                        cur = override_waiting_on_locked(owner);
                        if (!cur)
                                break;
                        unsigned cw = load_word(cur);
                        if (!(cw & MUTEX_WAITERS) || (pid_t) (cw & MUTEX_TID_MASK) == self)
                                break;
                        owner = (pid_t) (cw & MUTEX_TID_MASK);
                }
        }
        lib_unlock(LIB_LOCK_OVERRIDE);

        pid_t covered[QOS_MUTEX_CHAIN_MAX - 1];
        size_t n_covered = 0;
        for (size_t i = 0; i < n; i++)
                if (direct)
                        (void) override_settle(tids[i]);
                else
                        lend_brokered(hops[i], i == 0 ? m : NULL, covered, &n_covered);
}

static int lock_slow(qos_mutex_t *m, pid_t self, const struct timespec *abstime) {
        unsigned lent_for = 0;
        bool waiting = false;
        int r;

        for (;;) {
                unsigned w = load_word(m);
                if (w == 0) {
                        /* Taken with the waiters bit: others may still sleep
                         * on the word, and the bit makes our unlock wake one. */
                        if (__atomic_compare_exchange_n(&m->__word, &w, (unsigned) self | MUTEX_WAITERS, false,
                                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
                                r = 0;
                                break;
                        }
                        continue;
                }
                if ((w & MUTEX_TID_MASK) == (unsigned) self) {
                        r = -EDEADLK;
                        break;
                }
                if (!(w & MUTEX_WAITERS)) {
                        if (!__atomic_compare_exchange_n(&m->__word, &w, w | MUTEX_WAITERS, false,
                                                         __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                                continue;
                        w |= MUTEX_WAITERS;
                }
                /* Once per owner (per word value), not per spurious wake. */
                if (w != lent_for) {
                        lend(m, self, w, &waiting);
                        lent_for = w;
                }
                r = futex_wait(&m->__word, w, abstime);
                if (r == -ETIMEDOUT)
                        break;
        }
        if (waiting) {
                lib_lock(LIB_LOCK_OVERRIDE);
                (void) override_set_waiting_locked(self, NULL);
                lib_unlock(LIB_LOCK_OVERRIDE);
        }
        return r;
}

int qos_mutex_lock(qos_mutex_t *m) {
        pid_t self = self_tid();
        unsigned zero = 0;
        /* Acquire pairs with the release in unlock: the previous owner's
         * critical section happens before ours. */
        if (__builtin_expect(__atomic_compare_exchange_n(&m->__word, &zero, (unsigned) self, false,
                                                         __ATOMIC_ACQUIRE, __ATOMIC_RELAXED), 1))
                return 0;
        return lock_slow(m, self, NULL);
}

int qos_mutex_trylock(qos_mutex_t *m) {
        unsigned zero = 0;
        return __atomic_compare_exchange_n(&m->__word, &zero, (unsigned) self_tid(), false, __ATOMIC_ACQUIRE,
                                           __ATOMIC_RELAXED)
                       ? 0
                       : -EBUSY;
}

int qos_mutex_timedlock(qos_mutex_t *m, const struct timespec *abstime) {
        unsigned zero = 0;
        pid_t self = self_tid();
        if (__atomic_compare_exchange_n(&m->__word, &zero, (unsigned) self, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
                return 0;
        int r = timespec_check(abstime);
        if (r < 0 || !abstime)
                return r < 0 ? r : -EINVAL;
        return lock_slow(m, self, abstime);
}

static void unlock_slow(qos_mutex_t *m, pid_t self) {
        qos_override_t *ended = NULL;

        /* Wake first: the waiter should not wait for our own way back
         * down, which may leave us at SCHED_IDLE behind busy CPUs. */
        futex_wake(&m->__word, 1);

        lib_lock(LIB_LOCK_OVERRIDE);
        /* Only what was lent to us: between our exchange and this lock the
         * next owner may have taken the mutex, and been lent to. */
        qos_override_t **keep = (qos_override_t **) &m->__lent, *o = *keep;
        *keep = NULL;
        while (o) {
                qos_override_t *next = o->next;
                if (o->tid != self) {
                        *keep = o;
                        keep = &o->next;
                        *keep = NULL;
                } else if (o->pending)
                        o->orphaned = true;
                else {
                        if (!o->brokered)
                                override_pop_locked(o);
                        o->next = ended;
                        ended = o;
                }
                o = next;
        }
        lib_unlock(LIB_LOCK_OVERRIDE);

        while (ended) {
                qos_override_t *next = ended->next;
                end_lent(ended);
                ended = next;
        }
}

int qos_mutex_unlock(qos_mutex_t *m) {
        /* Release: our critical section happens before the next owner's. */
        unsigned old = __atomic_exchange_n(&m->__word, 0, __ATOMIC_RELEASE);
        if (__builtin_expect(old & MUTEX_WAITERS, 0))
                unlock_slow(m, (pid_t) (old & MUTEX_TID_MASK));
        return 0;
}
