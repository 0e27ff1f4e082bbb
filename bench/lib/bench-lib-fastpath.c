/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What libqos's fast path costs: nanoseconds per call, for the calls an
 * application makes, as root and as an unprivileged user (run it both
 * ways; the table says which it was). No qosd involved.
 *
 *   qos-bench-lib-fastpath [CALLS [RUNS]]   (default 20000 calls, 7 runs)
 *
 * Repeatable calls run CALLS times in a loop, RUNS times after one warm-up
 * run; the table gives the median run's time per call, and the fastest and
 * slowest runs. Thread creation runs CALLS/20 times per run. A real
 * demotion can happen only once per thread without privilege (coming back
 * up needs privilege), so those rows time one call on each of CALLS/100
 * fresh threads, RUNS times, and give the median, min and max of single
 * calls.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <qos/qos.h>

#include "../bench-clock.h"

static void row(const char *what, uint64_t *v, size_t n) {
        qsort(v, n, sizeof *v, cmp_u64);
        printf("%-58s %8llu %8llu %8llu\n", what, (unsigned long long) v[n / 2], (unsigned long long) v[0],
               (unsigned long long) v[n - 1]);
}

static unsigned calls = 20000, runs = 7;
static pid_t other_tid;

typedef int (*Call)(unsigned i);

static int call_class_self(unsigned i) {
        return qos_class_self() == QOS_CLASS_UNSPECIFIED ? -1 : 0;
}
static int call_self_same(unsigned i) {
        return qos_self_set_class(QOS_CLASS_UTILITY, 0);
}
static int call_self_toggle(unsigned i) {
        return qos_self_set_class(i & 1 ? QOS_CLASS_USER_INTERACTIVE : QOS_CLASS_UTILITY, 0);
}
static int call_other_same(unsigned i) {
        return qos_thread_set_class(other_tid, QOS_CLASS_UTILITY, 0);
}

/* CALLS calls per run; per-call time of each run. */
static void loop_row(const char *what, Call fn) {
        uint64_t v[64];
        /* Run 0 warms caches and the kernel caps probe up; not counted. */
        for (unsigned r = 0; r <= runs; r++) {
                uint64_t t0 = now_ns();
                for (unsigned i = 0; i < calls; i++)
                        if (fn(i) < 0) {
                                printf("%-58s failed\n", what);
                                return;
                        }
                if (r > 0)
                        v[r - 1] = (now_ns() - t0) / calls;
        }
        row(what, v, runs);
}

/* Threads that wait to be demoted once: by themselves or by the main thread. */
typedef struct Victim {
        sem_t go, done;
        pid_t tid;
        bool self;
        uint64_t ns;
        int r;
} Victim;

static void *victim_main(void *arg) {
        Victim *v = arg;
        v->tid = gettid();
        sem_post(&v->done);
        sem_wait(&v->go);
        if (v->self) {
                uint64_t t0 = now_ns();
                v->r = qos_self_set_class(QOS_CLASS_BACKGROUND, 0);
                v->ns = now_ns() - t0;
        }
        sem_post(&v->done);
        sem_wait(&v->go); /* until told to exit */
        return NULL;
}

static void demote_row(const char *what, bool self) {
        unsigned per_run = calls / 100 ?: 1, n = per_run * runs, k = 0;
        uint64_t *v = calloc(n, sizeof *v);
        Victim *vs = calloc(per_run, sizeof *vs);
        pthread_t *ts = calloc(per_run, sizeof *ts);

        for (unsigned r = 0; r < runs; r++) {
                for (unsigned i = 0; i < per_run; i++) {
                        vs[i] = (Victim) { .self = self };
                        sem_init(&vs[i].go, 0, 0);
                        sem_init(&vs[i].done, 0, 0);
                        pthread_create(&ts[i], NULL, victim_main, &vs[i]);
                        sem_wait(&vs[i].done);
                }
                for (unsigned i = 0; i < per_run; i++) {
                        if (!self) {
                                uint64_t t0 = now_ns();
                                vs[i].r = qos_thread_set_class(vs[i].tid, QOS_CLASS_BACKGROUND, 0);
                                vs[i].ns = now_ns() - t0;
                        }
                        sem_post(&vs[i].go);
                        sem_wait(&vs[i].done);
                        if (vs[i].r < 0) {
                                printf("%-58s failed\n", what);
                                return;
                        }
                        v[k++] = vs[i].ns;
                }
                for (unsigned i = 0; i < per_run; i++) {
                        sem_post(&vs[i].go);
                        pthread_join(ts[i], NULL);
                }
        }
        row(what, v, n);
        free(v);
        free(vs);
        free(ts);
}

static void *idle_main(void *arg) {
        other_tid = gettid();
        for (;;)
                pause();
        return arg;
}

static void *noop(void *arg) {
        return arg;
}

/* Thread creation with and without a class on the attribute object. */
static void create_row(const char *what, qos_class_t c) {
        uint64_t v[64];
        unsigned per_run = calls / 20 ?: 1;
        pthread_attr_t attr;

        qos_attr_init(&attr);
        if (c != QOS_CLASS_UNSPECIFIED)
                qos_attr_set_class(&attr, c, 0);
        for (unsigned r = 0; r <= runs; r++) {
                uint64_t t0 = now_ns();
                for (unsigned i = 0; i < per_run; i++) {
                        pthread_t t;
                        if (qos_pthread_create(&t, &attr, noop, NULL) < 0) {
                                printf("%-58s failed\n", what);
                                return;
                        }
                        pthread_join(t, NULL);
                }
                if (r > 0)
                        v[r - 1] = (now_ns() - t0) / per_run;
        }
        qos_attr_destroy(&attr);
        row(what, v, runs);
}

int main(int argc, char **argv) {
        pthread_t t;
        bool root = geteuid() == 0;

        if (argc > 1)
                calls = (unsigned) atoi(argv[1]);
        if (argc > 2)
                runs = (unsigned) atoi(argv[2]);
        if (calls < 100 || runs < 1 || runs > 64) {
                fprintf(stderr, "usage: %s [CALLS>=100 [RUNS<=64]]\n", argv[0]);
                return 2;
        }
        if (qos_class_self() != QOS_CLASS_UTILITY) {
                fprintf(stderr, "%s: start me at utility (the kernel's defaults)\n", argv[0]);
                return 1;
        }
        pthread_create(&t, NULL, idle_main, NULL);
        while (!__atomic_load_n(&other_tid, __ATOMIC_ACQUIRE))
                usleep(100);

        printf("libqos fast path, ns per call; caller %s (uid %d), no qosd\n",
               root ? "privileged" : "unprivileged", (int) getuid());
        printf("%-58s %8s %8s %8s\n", "CALL", "MEDIAN", "MIN", "MAX");
        loop_row("qos_class_self()", call_class_self);
        loop_row("qos_self_set_class(utility), already utility", call_self_same);
        loop_row("qos_thread_set_class(other thread, utility), no change", call_other_same);
        demote_row("qos_self_set_class(background), from utility", true);
        demote_row("qos_thread_set_class(other thread, background), from utility", false);
        if (root)
                loop_row("qos_self_set_class(), utility <-> user-interactive", call_self_toggle);
        create_row("pthread_create() + join, no class", QOS_CLASS_UNSPECIFIED);
        create_row("qos_pthread_create(background) + join", QOS_CLASS_BACKGROUND);
        return 0;
}
