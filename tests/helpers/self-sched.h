/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The calling thread's scheduling as the kernel reports it to the thread
 * itself, and a monotonic clock: for the helpers and benchmarks that check
 * qosd and the preload from inside a process, without qosd's own code
 * (so that they check it rather than repeat it). Header only. */
#pragma once

#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* glibc has no struct sched_attr: the kernel's SCHED_ATTR_SIZE_VER1. */
struct self_sched_attr {
        uint32_t size, sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime, sched_deadline, sched_period;
        uint32_t util_min, util_max;
};

static inline int self_sched_getattr(struct self_sched_attr *a) {
        *a = (struct self_sched_attr) { .size = sizeof *a };
        return syscall(SYS_sched_getattr, 0, a, sizeof *a, 0) < 0 ? -1 : 0;
}

static inline uint64_t monotonic_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}
