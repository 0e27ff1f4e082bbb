/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The preload's figures, measured from inside the programs concerned.
 *
 *   bench-preload threads N NICE   create N threads one after another; each
 *                                  spins on sched_getattr() from the first
 *                                  line of its start routine until it reads
 *                                  nice NICE (its class), for at most 1 s
 *   bench-preload exec N PROGRAM [ARGS...]
 *                                  fork+exec+wait PROGRAM N times
 *
 * threads prints, in microseconds, p50/p99/max of pthread_create() -> class
 * seen by the thread, how many saw it at their first look (already applied
 * when their code began) and how many never did. exec prints p50/p99 of
 * one fork+exec+exit, and p50 of the child's own CPU time (user + system,
 * from wait4()): what the program cost, whatever the machine's load.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "self-sched.h"

#define NEVER UINT64_MAX
#define now_ns monotonic_ns

static int nice_now(void) {
        struct self_sched_attr a;
        if (self_sched_getattr(&a) < 0)
                return 1000;
        return a.sched_nice;
}

typedef struct Probe {
        uint64_t t0;            /* just before pthread_create() */
        uint64_t latency;       /* creation -> class seen; NEVER */
        int want;
        int first_look;         /* 1: in class at the first line of its code */
} Probe;

static void *probe(void *userdata) {
        Probe *p = userdata;
        uint64_t start = now_ns();
        p->first_look = nice_now() == p->want;
        p->latency = NEVER;
        for (bool in = p->first_look; now_ns() - start < 1000000000ULL; in = nice_now() == p->want)
                if (in) {
                        p->latency = now_ns() - p->t0;
                        break;
                }
        return NULL;
}

static int cmp(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* p50, p99, max over the values that are not NEVER; returns how many are. */
static size_t quantiles(uint64_t *v, size_t n, double q[3]) {
        size_t ok = 0;
        qsort(v, n, sizeof *v, cmp);
        while (ok < n && v[ok] != NEVER)
                ok++;
        if (ok == 0)
                return 0;
        q[0] = (double) v[(ok - 1) / 2] / 1000.0;
        q[1] = (double) v[(size_t) ((double) (ok - 1) * 0.99)] / 1000.0;
        q[2] = (double) v[ok - 1] / 1000.0;
        return ok;
}

static int threads(size_t n, int want) {
        Probe *p = calloc(n, sizeof *p);
        uint64_t *lat = calloc(n, sizeof *lat);
        size_t first = 0;
        double q[3] = {};

        if (!p || !lat)
                return 1;
        for (size_t i = 0; i < n; i++) {
                pthread_t t;
                p[i].want = want;
                p[i].t0 = now_ns();
                if (pthread_create(&t, NULL, probe, &p[i]) != 0)
                        return 1;
                pthread_join(t, NULL);
                lat[i] = p[i].latency;
                first += (size_t) p[i].first_look;
        }
        size_t ok = quantiles(lat, n, q);
        printf("threads %zu p50_us %.1f p99_us %.1f max_us %.1f at_first_look %zu never %zu\n", n, q[0], q[1],
               q[2], first, n - ok);
        free(p);
        free(lat);
        return 0;
}

static uint64_t rusage_ns(const struct rusage *ru) {
        return ((uint64_t) ru->ru_utime.tv_sec + (uint64_t) ru->ru_stime.tv_sec) * 1000000000ULL +
               ((uint64_t) ru->ru_utime.tv_usec + (uint64_t) ru->ru_stime.tv_usec) * 1000ULL;
}

static int execs(size_t n, char **argv) {
        uint64_t *d = calloc(n, sizeof *d), *cpu = calloc(n, sizeof *cpu);
        double q[3] = {}, c[3] = {};

        if (!d || !cpu)
                return 1;
        for (size_t i = 0; i < n; i++) {
                uint64_t t0 = now_ns();
                pid_t pid = fork();
                if (pid < 0)
                        return 1;
                if (pid == 0) {
                        execv(argv[0], argv);
                        _exit(127);
                }
                struct rusage ru;
                if (wait4(pid, NULL, 0, &ru) < 0)
                        return 1;
                d[i] = now_ns() - t0;
                cpu[i] = rusage_ns(&ru);
        }
        quantiles(d, n, q);
        quantiles(cpu, n, c);
        printf("execs %zu p50_us %.1f p99_us %.1f cpu_p50_us %.1f\n", n, q[0], q[1], c[0]);
        free(d);
        free(cpu);
        return 0;
}

int main(int argc, char **argv) {
        if (argc == 4 && strcmp(argv[1], "threads") == 0)
                return threads(strtoul(argv[2], NULL, 10), atoi(argv[3]));
        if (argc >= 4 && strcmp(argv[1], "exec") == 0)
                return execs(strtoul(argv[2], NULL, 10), argv + 3);
        fprintf(stderr, "usage: bench-preload threads N NICE | exec N PROGRAM [ARGS...]\n");
        return 2;
}
