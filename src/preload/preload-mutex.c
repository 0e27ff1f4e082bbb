/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pthread_mutex_lock(), _timedlock(), _clocklock() and _unlock() with
 * lending (preload-lend.c). glibc's own calls decide every result and make
 * every change to the mutex: a lock only reads the lock word first, and if
 * the mutex is held, lends to its owner before calling glibc's lock, which
 * then gives the answer it gives alone (EDEADLK for an errorcheck mutex the
 * caller holds, a normal one's deadlock, a recursion, ETIMEDOUT,
 * EOWNERDEAD...). Not a trylock first: glibc's trylock differs from its
 * lock in side effects (on a robust mutex that is not recoverable it
 * leaves the lock word taken, its lock does not). Mutexes that are not
 * lent on (PI, PP, process-shared, elided) and every call before the
 * constructor go straight to glibc.
 *
 * The uncontended cost over glibc's: a flag, the mutex's kind and lock
 * word (loads from the mutex itself); no system call, no table. */
#include <errno.h>

#include "preload.h"

static inline bool lends_on(const pthread_mutex_t *m) {
        return __builtin_expect(preload_lend_enabled(), 1) && glibc_mutex_lendable(m);
}

/* Free: glibc's call alone. Held (by someone else, or by the caller: the
 * lender finds out): lend,
 * wait in glibc's call, and end what the owner did not. A mutex that was
 * free when looked at and is taken before glibc's call is waited on
 * without a loan. */
#define LOCK_LENDING(m, call)                                           \
        do {                                                            \
                if (!lends_on(m) || __builtin_expect(!glibc_mutex_held(m), 1)) \
                        return (call);                                  \
                preload_lend_before_wait(m);                            \
                int r_ = (call);                                        \
                preload_lend_after_wait();                              \
                return r_;                                              \
        } while (0)

__attribute__((visibility("default"))) int pthread_mutex_lock(pthread_mutex_t *m) {
        LOCK_LENDING(m, real_pthread_mutex_lock()(m));
}

__attribute__((visibility("default"))) int pthread_mutex_timedlock(pthread_mutex_t *m,
                                                                   const struct timespec *abstime) {
        LOCK_LENDING(m, real_pthread_mutex_timedlock()(m, abstime));
}

__attribute__((visibility("default"))) int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
                                                                   const struct timespec *abstime) {
        mutex_clock_fn next = real_pthread_mutex_clocklock();
        if (!next)
                return ENOSYS;
        LOCK_LENDING(m, next(m, clock, abstime));
}

__attribute__((visibility("default"))) int pthread_mutex_unlock(pthread_mutex_t *m) {
        if (!lends_on(m))
                return real_pthread_mutex_unlock()(m);
        /* Read before glibc's unlock: afterwards the mutex may be another
         * thread's, or freed. */
        bool look = __builtin_expect(glibc_mutex_has_waiters(m), 0) && glibc_mutex_unlock_releases(m);
        int r = real_pthread_mutex_unlock()(m);
        if (__builtin_expect(look, 0) && r == 0)
                preload_lend_end_held(m);
        return r;
}
