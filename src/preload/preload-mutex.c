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

#include "preload/preload.h"

/* Free, or not a type we lend on: glibc's call alone. Held (by someone
 * else, or by the caller: the lender finds out): lend, wait in glibc's
 * call, and end what the owner did not. A mutex that was free when looked
 * at and is taken before glibc's call is waited on without a loan. */
#define LOCK_LENDING(m, call)                                                           \
        do {                                                                            \
                if (__builtin_expect(!glibc_mutex_held(m), 1) || !glibc_mutex_lendable(m)) \
                        return (call);                                                  \
                preload_lend_before_wait(m);                                            \
                int r_ = (call);                                                        \
                preload_lend_after_wait();                                              \
                return r_;                                                              \
        } while (0)

/* glibc's lock and unlock until the constructor has resolved them. */
static int boot_lock(pthread_mutex_t *m) {
        return real_pthread_mutex_lock()(m);
}

static int boot_unlock(pthread_mutex_t *m) {
        return real_pthread_mutex_unlock()(m);
}

PreloadLending preload_lending __attribute__((aligned(64))) = {
        .lock = boot_lock,
        .unlock = boot_unlock,
};

/* Out of line, so that the fast paths below need no stack frame: a load
 * of the lock word, a compare and a jump to glibc. */
static __attribute__((noinline)) int lock_held(pthread_mutex_t *m) {
        if (!preload_lend_enabled())
                return preload_lending.lock(m);
        LOCK_LENDING(m, preload_lending.lock(m));
}

__attribute__((visibility("default"))) int pthread_mutex_lock(pthread_mutex_t *m) {
        if (__builtin_expect(!glibc_mutex_held(m), 1))
                return preload_lending.lock(m);
        return lock_held(m);
}

__attribute__((visibility("default"))) int pthread_mutex_timedlock(pthread_mutex_t *m,
                                                                   const struct timespec *abstime) {
        if (!preload_lend_enabled())
                return real_pthread_mutex_timedlock()(m, abstime);
        LOCK_LENDING(m, preload_lending.timedlock(m, abstime));
}

__attribute__((visibility("default"))) int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
                                                                   const struct timespec *abstime) {
        if (!preload_lend_enabled()) {
                mutex_clock_fn next = real_pthread_mutex_clocklock();
                return next ? next(m, clock, abstime) : ENOSYS;
        }
        LOCK_LENDING(m, preload_lending.clocklock(m, clock, abstime));
}

static __attribute__((noinline)) int unlock_waited(pthread_mutex_t *m) {
        if (!preload_lend_enabled() || !glibc_mutex_lendable(m) || !glibc_mutex_has_waiters(m) ||
            !glibc_mutex_unlock_releases(m))
                return preload_lending.unlock(m);
        int r = preload_lending.unlock(m);
        if (r == 0)
                preload_lend_end_held(m);
        return r;
}

__attribute__((visibility("default"))) int pthread_mutex_unlock(pthread_mutex_t *m) {
        /* Read before glibc's unlock: afterwards the mutex may be another
         * thread's, or freed. Free or held without waiters (the plain
         * types' 0 and 1) is the common case. */
        if (__builtin_expect((unsigned) __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) <= 1, 1))
                return preload_lending.unlock(m);
        return unlock_waited(m);
}
