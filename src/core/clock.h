/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <time.h>

/* A clock in microseconds (CLOCK_MONOTONIC for timeouts and rate limits,
 * CLOCK_THREAD_CPUTIME_ID for a thread's own CPU time). */
static inline uint64_t clock_usec(clockid_t clock) {
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}
