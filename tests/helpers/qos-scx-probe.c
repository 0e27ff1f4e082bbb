/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tasks test-scx-qos.sh schedules: each takes its class through libqos
 * (so from the knobs qosd's class table sets, which is what scx_qos reads),
 * optionally a CPU to stay on and a name, then does one of two things:
 *
 *   qos-scx-probe CLASS hog SECONDS [--cpu N] [--comm NAME]
 *       spins for SECONDS of wall time in small units of work, then prints
 *       "units U max_gap_ms G": the work done, and the longest wall time
 *       between two finished units (the longest stall).
 *   qos-scx-probe CLASS wake PERIOD_US COUNT [--cpu N | --start-cpu N]
 *       sleeps to an absolute release COUNT times, PERIOD_US apart, and on
 *       each wake-up notes the CPU it woke on and how late it woke; prints
 *       "wakes N cpu0 A cpu1 B ... p50_us X p99_us Y max_us Z".
 *
 * --start-cpu N starts on CPU N and may then run anywhere: the scheduler
 * would keep its first wake-up there, on the CPU it last ran on, if it had
 * no reason to move it.
 *
 * CLASS is a qos_class_from_string() name. Exits 2 on a usage error, 1
 * when the class or the CPU cannot be set.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <qos/qos.h>

#include "self-sched.h"

#define MAX_CPUS 64

static int usage(void) {
        fprintf(stderr, "usage: qos-scx-probe CLASS hog SECONDS [--cpu N] [--comm NAME]\n"
                        "       qos-scx-probe CLASS wake PERIOD_US COUNT [--cpu N | --start-cpu N]\n");
        return 2;
}

/* To CPU cpu, or (-1) to every CPU. */
static int pin_to(int cpu) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int c = 0; c < CPU_SETSIZE; c++)
                if (cpu < 0 || c == cpu)
                        CPU_SET(c, &set);
        if (sched_setaffinity(0, sizeof set, &set) < 0) {
                fprintf(stderr, "qos-scx-probe: cpu %d: %s\n", cpu, strerror(errno));
                return -1;
        }
        return 0;
}

/* A unit is short (tens of microseconds) so that a gap between two units
 * is a stall, not the unit's own length. */
static void work_unit(void) {
        static volatile uint64_t sink;
        uint64_t x = sink;
        for (int i = 0; i < 20000; i++)
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
}

static int run_hog(double seconds) {
        uint64_t start = monotonic_ns(), end = start + (uint64_t) (seconds * 1e9);
        uint64_t last = start, max_gap = 0, units = 0;
        for (;;) {
                work_unit();
                uint64_t now = monotonic_ns();
                units++;
                if (now - last > max_gap)
                        max_gap = now - last;
                last = now;
                if (now >= end)
                        break;
        }
        printf("units %" PRIu64 " max_gap_ms %.1f\n", units, (double) max_gap / 1e6);
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

static int run_wake(uint64_t period_ns, unsigned count) {
        uint64_t *late = calloc(count, sizeof *late);
        unsigned on_cpu[MAX_CPUS] = { 0 };
        if (!late)
                return 1;

        uint64_t release = monotonic_ns() + period_ns;
        for (unsigned i = 0; i < count; i++) {
                struct timespec ts = { .tv_sec = (time_t) (release / 1000000000ULL),
                                       .tv_nsec = (long) (release % 1000000000ULL) };
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                        ;
                uint64_t woke = monotonic_ns();
                int cpu = sched_getcpu();
                late[i] = woke > release ? woke - release : 0;
                if (cpu >= 0 && cpu < MAX_CPUS)
                        on_cpu[cpu]++;
                release += period_ns;
                if (release < woke) /* a wake-up later than a period: start over */
                        release = woke + period_ns;
        }

        qsort(late, count, sizeof *late, cmp_u64);
        printf("wakes %u", count);
        for (int c = 0; c < MAX_CPUS; c++)
                if (on_cpu[c] || c < 2)
                        printf(" cpu%d %u", c, on_cpu[c]);
        printf(" p50_us %.0f p99_us %.0f max_us %.0f\n", (double) late[count / 2] / 1e3,
               (double) late[(count * 99) / 100] / 1e3, (double) late[count - 1] / 1e3);
        free(late);
        return 0;
}

int main(int argc, char **argv) {
        if (argc < 4)
                return usage();
        qos_class_t class;
        if (qos_class_from_string(argv[1], &class) < 0)
                return usage();

        int cpu = -1, start_cpu = -1, args = strcmp(argv[2], "wake") == 0 ? 5 : 4;
        const char *comm = NULL;
        if (argc < args)
                return usage();
        for (int i = args; i < argc; i++) {
                if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc)
                        cpu = atoi(argv[++i]);
                else if (strcmp(argv[i], "--start-cpu") == 0 && i + 1 < argc)
                        start_cpu = atoi(argv[++i]);
                else if (strcmp(argv[i], "--comm") == 0 && i + 1 < argc)
                        comm = argv[++i];
                else
                        return usage();
        }

        if (comm)
                (void) prctl(PR_SET_NAME, comm);
        if (cpu >= 0 && start_cpu >= 0)
                return usage();
        if ((cpu >= 0 && pin_to(cpu) < 0) || (start_cpu >= 0 && pin_to(start_cpu) < 0))
                return 1;
        int r = qos_self_set_class(class, 0);
        if (r != 0) {
                fprintf(stderr, "qos-scx-probe: set class %s: %s\n", argv[1], strerror(r < 0 ? -r : r));
                return 1;
        }
        if (start_cpu >= 0 && pin_to(-1) < 0)
                return 1;
        setvbuf(stdout, NULL, _IOLBF, 0);

        if (strcmp(argv[2], "hog") == 0)
                return run_hog(atof(argv[3]));
        if (strcmp(argv[2], "wake") == 0) {
                long period_us = atol(argv[3]), count = atol(argv[4]);
                if (period_us <= 0 || count <= 0)
                        return usage();
                return run_wake((uint64_t) period_us * 1000, (unsigned) count);
        }
        return usage();
}
