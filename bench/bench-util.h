/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the benchmark probes share: clocks, burning a measured amount of CPU,
 * waiting for the runner's start signal, and writing samples. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

uint64_t now_ns(void);          /* CLOCK_MONOTONIC */
uint64_t thread_cpu_ns(void);   /* CLOCK_THREAD_CPUTIME_ID */

/* Sleep until an absolute CLOCK_MONOTONIC time. */
void sleep_until_ns(uint64_t t);

/* Spin until this thread has run for ns of CPU time (not wall time: time
 * spent preempted does not count, so a frame's work is the same under load). */
void burn_cpu_ns(uint64_t ns);

/* The options the periodic probes share. Exits with usage on error. */
typedef struct ProbeOptions {
        uint64_t period_ns;
        uint64_t work_ns;
        uint64_t duration_ns;
        unsigned threads;       /* only where allowed */
        const char *out;
} ProbeOptions;

void probe_parse_options(int argc, char **argv, const char *usage, bool threads, ProbeOptions *ret);

/* Print "ready" and block until the runner writes a line to stdin, so that
 * settings are applied to every thread before measuring starts. */
void wait_for_go(void);

/* Samples file: one line per sample, "latency_us wakeup_us". */
FILE *samples_open(const char *path);
void samples_write(FILE *f, uint64_t latency_ns, uint64_t wakeup_ns);

/* The release after one whose work ended at `done`: the next period, or if
 * that has passed already (counted in *missed), the first one still ahead. */
uint64_t next_release(uint64_t release, uint64_t period, uint64_t done, unsigned long *missed);
