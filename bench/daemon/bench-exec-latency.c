/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * exec -> class applied, as the exec'd program sees it.
 *
 *   bench-exec-latency N PROBE   run PROBE (a copy of this binary that a
 *                                background rule matches) N times
 *
 * Each child takes CLOCK_MONOTONIC just before execve() and passes it in the
 * environment; the probe (static, so main() runs a few microseconds after
 * the kernel's exec event) takes the time again at main() and then spins on
 * sched_getattr() until it reads SCHED_IDLE (background). Two latencies per
 * exec: from the execve() call (includes exec itself: an upper bound) and
 * from main() (0 when qosd was already done: a lower bound). Prints
 * p50/p90/p99/max of both and the number never applied within 1 s.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "self-sched.h"

#define now_ns monotonic_ns

static int policy_now(void) {
        struct self_sched_attr a;
        if (self_sched_getattr(&a) < 0)
                return -1;
        return (int) a.sched_policy;
}

static int probe(void) {
        uint64_t t_main = now_ns();
        const char *s = getenv("QOS_BENCH_T0");
        uint64_t t0 = s ? strtoull(s, NULL, 10) : t_main, t1 = 0;
        while (now_ns() - t_main < 1000000000ULL) {
                if (policy_now() == SCHED_IDLE) {
                        t1 = now_ns();
                        break;
                }
        }
        uint64_t res[2] = { t1 ? t1 - t0 : UINT64_MAX, t1 ? t1 - t_main : UINT64_MAX };
        if (write(3, res, sizeof res) != sizeof res)
                return 1;
        return 0;
}

static int cmp(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

static void row(const char *name, uint64_t *v, size_t n) {
        qsort(v, n, sizeof *v, cmp);
        size_t ok = 0;
        while (ok < n && v[ok] != UINT64_MAX)
                ok++;
        if (ok == 0) {
                printf("%-26s %8s %8s %8s %8s %7zu\n", name, "-", "-", "-", "-", n);
                return;
        }
#define P(q) ((double) v[(size_t) ((ok - 1) * (q))] / 1000.0)
        printf("%-26s %8.1f %8.1f %8.1f %8.1f %7zu\n", name, P(0.50), P(0.90), P(0.99), P(1.0), n - ok);
}

int main(int argc, char **argv) {
        if (argc >= 2 && strcmp(argv[1], "--probe") == 0)
                return probe();
        if (argc != 3) {
                fprintf(stderr, "usage: bench-exec-latency N PROBE\n");
                return 2;
        }
        size_t n = strtoul(argv[1], NULL, 10);
        uint64_t *from_exec = calloc(n, sizeof *from_exec), *from_main = calloc(n, sizeof *from_main);
        if (!from_exec || !from_main)
                return 1;
        for (size_t i = 0; i < n; i++) {
                int p[2];
                if (pipe(p) < 0)
                        return 1;
                pid_t pid = fork();
                if (pid == 0) {
                        char t0[32];
                        dup2(p[1], 3);
                        snprintf(t0, sizeof t0, "%" PRIu64, now_ns());
                        setenv("QOS_BENCH_T0", t0, 1);
                        execl(argv[2], argv[2], "--probe", (char *) NULL);
                        _exit(127);
                }
                close(p[1]);
                uint64_t res[2] = { UINT64_MAX, UINT64_MAX };
                if (read(p[0], res, sizeof res) != sizeof res)
                        res[0] = res[1] = UINT64_MAX;
                close(p[0]);
                waitpid(pid, NULL, 0);
                from_exec[i] = res[0];
                from_main[i] = res[1];
        }
        printf("%-26s %8s %8s %8s %8s %7s\n", "exec -> class (us)", "p50", "p90", "p99", "max", "missed");
        row("from the execve() call", from_exec, n);
        row("from the probe's main()", from_main, n);
        return 0;
}
