/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pthread_cond_wait(), _timedwait() and _clockwait(): glibc releases the
 * mutex inside, without our unlock wrapper, so the loans made to the
 * caller on it end here, just before. glibc also takes the mutex back
 * inside, where a waiter cannot lend: the wait is recorded instead, and
 * pthread_cond_signal() and _broadcast() lend on the waiter's behalf to a
 * signaller that holds that mutex (the usual lock, change, signal,
 * unlock), until it releases it. The version script binds the wait,
 * timedwait, signal and broadcast at GLIBC_2.3.2 only: programs built
 * against the condition variables of glibc before 2.3.2 keep glibc's
 * compatibility calls, untouched. Everything else is glibc's, results
 * included. */
#include <errno.h>

#include "preload/preload.h"

static inline void before_release(pthread_mutex_t *m) {
        if (__builtin_expect(glibc_mutex_has_waiters(m), 0) && glibc_mutex_lendable(m) &&
            glibc_mutex_unlock_releases(m) && glibc_mutex_owner(m) == preload_self_tid())
                preload_lend_end_held(m);
}

static void wait_cancelled(void *unused) {
        preload_cond_wait_end();
}

/* The wait is a cancellation point: the record goes when the wait
 * returns and also when the thread is cancelled in it. */
#define COND_WAITING(c, m, call)                                \
        do {                                                    \
                int r_;                                         \
                before_release(m);                              \
                preload_cond_wait_begin(c, m);                  \
                pthread_cleanup_push(wait_cancelled, NULL);     \
                r_ = (call);                                    \
                pthread_cleanup_pop(1);                         \
                return r_;                                      \
        } while (0)

__attribute__((visibility("default"))) int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
        if (!preload_lend_enabled())
                return real_pthread_cond_wait()(c, m);
        COND_WAITING(c, m, preload_lending.cond_wait(c, m));
}

__attribute__((visibility("default"))) int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                                                  const struct timespec *abstime) {
        if (!preload_lend_enabled())
                return real_pthread_cond_timedwait()(c, m, abstime);
        COND_WAITING(c, m, preload_lending.cond_timedwait(c, m, abstime));
}

__attribute__((visibility("default"))) int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                                                                  clockid_t clock, const struct timespec *abstime) {
        if (!preload_lend_enabled()) {
                cond_clock_fn next = real_pthread_cond_clockwait();
                return next ? next(c, m, clock, abstime) : ENOSYS;
        }
        COND_WAITING(c, m, preload_lending.cond_clockwait(c, m, clock, abstime));
}

__attribute__((visibility("default"))) int pthread_cond_signal(pthread_cond_t *c) {
        if (!preload_lend_enabled())
                return real_pthread_cond_signal()(c);
        preload_lend_before_signal(c);
        return preload_lending.cond_signal(c);
}

__attribute__((visibility("default"))) int pthread_cond_broadcast(pthread_cond_t *c) {
        if (!preload_lend_enabled())
                return real_pthread_cond_broadcast()(c);
        preload_lend_before_signal(c);
        return preload_lending.cond_broadcast(c);
}
