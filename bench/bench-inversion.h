/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the priority-inversion benchmarks (bench/inherit, bench/preload)
 * share: a clock, a holder's measured CPU work, and the scenario's own
 * session. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t inversion_now_ns(clockid_t clk) {
        struct timespec ts;
        clock_gettime(clk, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* ms of the calling thread's CPU time: preemption stretches it. */
static inline void inversion_work_cpu_ms(double ms) {
        uint64_t end = inversion_now_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t) (ms * 1e6);
        while (inversion_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
                ;
}

/* The scenario's own session at autogroup nice -20 (run under setsid as
 * root), so that other sessions' load on a shared machine does not decide
 * the tail; the same for every variant compared. Returns what it did. */
static inline const char *bench_isolate_session(void) {
        FILE *f = fopen("/proc/self/autogroup", "we");
        if (!f || getsid(0) != getpid()) {
                if (f)
                        fclose(f);
                return "shared with other sessions (run under setsid as root to isolate)";
        }
        bool ok = fprintf(f, "-20\n") > 0;
        ok = (fclose(f) == 0) && ok;
        return ok ? "own session at autogroup nice -20" : "autogroup nice refused";
}
