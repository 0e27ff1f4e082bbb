/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A CPU hog that counts its work: one unit is a pass of arithmetic over a
 * private buffer (1 MiB by default, so that being switched out for another
 * hog costs cache refills, as it does for a compiler). Runs until SIGTERM
 * or for --seconds, then prints
 *
 *   units U seconds T switches S max_gap_ms G max_gap_at_s A
 *   steady_max_gap_ms H
 *
 * switches: involuntary context switches (preemptions); max_gap_ms: the
 * longest wall time between two finished units, i.e. the longest stall;
 * max_gap_at_s: when it ended, from the start; steady_max_gap_ms: the
 * longest stall that ended --steady-after seconds or later (0 by default:
 * the same as max_gap_ms). A load started beside the hog stalls it while
 * it starts up; the steady figure leaves that moment out. Then, after
 * "check", "on_cpus C:N,...": the units done on each CPU (where each ended).
 *
 *   qos-bench-hog [--buffer-kib N] [--seconds S] [--steady-after S]
 *
 * Prints "ready" and waits for a line on stdin before starting.
 */
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench-util.h"

#define HOG_MAX_CPUS 256

static volatile sig_atomic_t stop;

static void on_term(int sig) {
        stop = 1;
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "buffer-kib", required_argument, NULL, 'b' },
                { "seconds", required_argument, NULL, 's' },
                { "steady-after", required_argument, NULL, 'a' },
                {},
        };
        size_t words = 1024 * 1024 / sizeof(uint64_t);
        double seconds = 0, steady_after = 0;
        int c;

        while ((c = getopt_long(argc, argv, "b:s:a:", opts, NULL)) >= 0) {
                switch (c) {
                case 'b':
                        words = (size_t) atol(optarg) * 1024 / sizeof(uint64_t);
                        break;
                case 's':
                        seconds = atof(optarg);
                        break;
                case 'a':
                        steady_after = atof(optarg);
                        break;
                default:
                        fprintf(stderr, "usage: qos-bench-hog [--buffer-kib N] [--seconds S] [--steady-after S]\n");
                        return 2;
                }
        }
        if (words == 0) {
                fprintf(stderr, "qos-bench-hog: buffer too small\n");
                return 2;
        }

        uint64_t *buf = calloc(words, sizeof *buf);
        if (!buf)
                return 1;
        struct sigaction sa = { .sa_handler = on_term };
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        wait_for_go();

        static uint64_t on_cpu[HOG_MAX_CPUS];
        uint64_t start = now_ns(), last = start, max_gap = 0, max_gap_at = start, units = 0, x = 1;
        uint64_t steady_from = start + (uint64_t) (steady_after * (double) NSEC_PER_SEC), steady_max_gap = 0;
        uint64_t end = seconds > 0 ? start + (uint64_t) (seconds * (double) NSEC_PER_SEC) : UINT64_MAX;
        for (;;) {
                for (size_t i = 0; i < words; i++) {
                        x = x * 6364136223846793005ULL + buf[i];
                        buf[i] = x;
                }
                uint64_t t = now_ns();
                int cpu = sched_getcpu();
                if (cpu >= 0 && cpu < HOG_MAX_CPUS)
                        on_cpu[cpu]++;
                units++;
                if (t - last > max_gap) {
                        max_gap = t - last;
                        max_gap_at = t;
                }
                if (t >= steady_from && t - last > steady_max_gap)
                        steady_max_gap = t - last;
                last = t;
                if (stop || t >= end)
                        break;
        }

        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("units %llu seconds %.3f switches %ld max_gap_ms %.1f max_gap_at_s %.3f steady_max_gap_ms %.1f "
               "check %llu",
               (unsigned long long) units, (double) (last - start) / (double) NSEC_PER_SEC, ru.ru_nivcsw,
               (double) max_gap / (double) NSEC_PER_MSEC, (double) (max_gap_at - start) / (double) NSEC_PER_SEC,
               (double) steady_max_gap / (double) NSEC_PER_MSEC, (unsigned long long) (x & 1));
        const char *sep = " on_cpus ";
        for (int cpu = 0; cpu < HOG_MAX_CPUS; cpu++)
                if (on_cpu[cpu]) {
                        printf("%s%d:%llu", sep, cpu, (unsigned long long) on_cpu[cpu]);
                        sep = ",";
                }
        printf("\n");
        free(buf);
        return 0;
}
