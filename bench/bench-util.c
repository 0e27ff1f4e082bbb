/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-util.h"

static uint64_t clock_ns(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

uint64_t now_ns(void) {
        return clock_ns(CLOCK_MONOTONIC);
}

uint64_t thread_cpu_ns(void) {
        return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void sleep_until_ns(uint64_t t) {
        struct timespec ts = { .tv_sec = (time_t) (t / NSEC_PER_SEC), .tv_nsec = (long) (t % NSEC_PER_SEC) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

void burn_cpu_ns(uint64_t ns) {
        uint64_t end = thread_cpu_ns() + ns;
        volatile uint64_t x = 1;

        /* ~1-2 us of arithmetic between clock reads. */
        do {
                for (int i = 0; i < 500; i++)
                        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        } while (thread_cpu_ns() < end);
}

static uint64_t parse_ms(const char *s, const char *what) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (errno || end == s || *end || v < 0 || v > 1e6) {
                fprintf(stderr, "invalid %s '%s' (milliseconds)\n", what, s);
                exit(2);
        }
        return (uint64_t) (v * (double) NSEC_PER_MSEC);
}

void probe_parse_options(int argc, char **argv, const char *usage, bool threads, ProbeOptions *ret) {
        static const struct option opts[] = {
                { "period", required_argument, NULL, 'p' },
                { "work", required_argument, NULL, 'w' },
                { "seconds", required_argument, NULL, 's' },
                { "threads", required_argument, NULL, 't' },
                { "out", required_argument, NULL, 'o' },
                {},
        };
        ProbeOptions o = { .duration_ns = 10 * NSEC_PER_SEC, .threads = 1 };
        int c;

        while ((c = getopt_long(argc, argv, "p:w:s:t:o:", opts, NULL)) >= 0) {
                switch (c) {
                case 'p':
                        o.period_ns = parse_ms(optarg, "period");
                        break;
                case 'w':
                        o.work_ns = parse_ms(optarg, "work");
                        break;
                case 's':
                        o.duration_ns = parse_ms(optarg, "seconds") * 1000;
                        break;
                case 't':
                        o.threads = (unsigned) atoi(optarg);
                        if (!threads)
                                c = '?';
                        break;
                case 'o':
                        o.out = optarg;
                        break;
                }
                if (c == '?')
                        break;
        }
        if (c == '?' || optind < argc || o.period_ns == 0 || o.work_ns >= o.period_ns || !o.out ||
            o.threads < 1 || o.threads > 64) {
                fprintf(stderr, "usage: %s\n", usage);
                exit(2);
        }
        *ret = o;
}

void wait_for_go(void) {
        char line[16];

        printf("ready\n");
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin))
                exit(0); /* the runner went away before starting us */
}

FILE *samples_open(const char *path) {
        FILE *f = fopen(path, "we");
        if (!f) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                exit(1);
        }
        return f;
}

void samples_write(FILE *f, uint64_t latency_ns, uint64_t wakeup_ns) {
        fprintf(f, "%.1f %.1f\n", (double) latency_ns / 1e3, (double) wakeup_ns / 1e3);
}

uint64_t next_release(uint64_t release, uint64_t period, uint64_t done, unsigned long *missed) {
        uint64_t next = release + period;
        if (done > next) {
                (*missed)++;
                next += (done - next) / period * period + period;
        }
        return next;
}
