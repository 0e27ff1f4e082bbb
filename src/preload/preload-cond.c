/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pthread_cond_wait(), _timedwait() and _clockwait(): glibc releases the
 * mutex inside, without our unlock wrapper, so the loans made to the
 * caller on it end here, just before. The version script binds the first
 * two at GLIBC_2.3.2 only: programs built against the condition variables
 * of glibc before 2.3.2 keep glibc's compatibility calls, untouched.
 * Everything else is glibc's, results included. */
#include <errno.h>

#include "preload.h"

static inline void before_release(pthread_mutex_t *m) {
        if (__builtin_expect(glibc_mutex_has_waiters(m), 0) && glibc_mutex_lendable(m) &&
            glibc_mutex_unlock_releases(m) && glibc_mutex_owner(m) == preload_self_tid())
                preload_lend_end_held(m);
}

__attribute__((visibility("default"))) int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
        if (!preload_lend_enabled())
                return real_pthread_cond_wait()(c, m);
        before_release(m);
        return preload_lending.cond_wait(c, m);
}

__attribute__((visibility("default"))) int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                                                  const struct timespec *abstime) {
        if (!preload_lend_enabled())
                return real_pthread_cond_timedwait()(c, m, abstime);
        before_release(m);
        return preload_lending.cond_timedwait(c, m, abstime);
}

__attribute__((visibility("default"))) int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                                                                  clockid_t clock, const struct timespec *abstime) {
        if (!preload_lend_enabled()) {
                cond_clock_fn next = real_pthread_cond_clockwait();
                return next ? next(c, m, clock, abstime) : ENOSYS;
        }
        before_release(m);
        return preload_lending.cond_clockwait(c, m, clock, abstime);
}
