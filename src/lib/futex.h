/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The two futex operations qos_mutex_t and qos_cond_t need, process
 * private. They return 0 or a negative errno and leave errno as it was,
 * as every libqos call does. */
#pragma once

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleep while *word == val, until woken or until abstime (CLOCK_REALTIME;
 * NULL: no limit). -EAGAIN if *word was not val, -EINTR, -ETIMEDOUT. */
static inline int futex_wait(unsigned *word, unsigned val, const struct timespec *abstime) {
        int saved = errno;
        long r = syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE | (abstime ? FUTEX_CLOCK_REALTIME : 0),
                         val, abstime, NULL, FUTEX_BITSET_MATCH_ANY);
        int e = r < 0 ? -errno : 0;
        errno = saved;
        return e;
}

/* Wake up to n threads sleeping on word. */
static inline void futex_wake(unsigned *word, int n) {
        int saved = errno;
        (void) syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
        errno = saved;
}

static inline int timespec_check(const struct timespec *ts) {
        return ts && (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L) ? -EINVAL : 0;
}
