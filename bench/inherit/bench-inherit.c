/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Performance inheritance figures, run as root (overrides applied
 * directly) or as a user with qosd running (lent through qosd).
 *
 *   qos-bench-inherit inversion [SECONDS]
 *       Priority inversion: a user-interactive thread takes a lock every
 *       5 ms that a background thread holds for 1 ms of CPU work at a
 *       time, while 2 x nproc background hogs keep the CPUs busy - all in
 *       one process, so per-thread classes decide. The user-interactive
 *       thread asks for the lock while the holder is inside (waited: how
 *       many samples found it taken). Lock-wait p50/p90/p99/max,
 *       pthread_mutex_t vs qos_mutex_t.
 *   qos-bench-inherit starvation [SECONDS]
 *       What inheritance is for: the same user-interactive waiter and
 *       background holder, but 2 x nproc utility hogs (the default class)
 *       beside them, which starve a background thread (SCHED_IDLE's weight
 *       is 3 against their 1024: about 0.15% of a CPU). The holder works
 *       1 ms between holds instead of sleeping, so it is always runnable.
 *       Without a loan the waiter waits for that share.
 *   qos-bench-inherit uncontended [MILLIONS]
 *       ns per lock+unlock pair without contention, best and median of 11
 *       runs per lock, the two locks taking turns.
 *   qos-bench-inherit override [COUNT]
 *       µs per qos_override_begin+end on another thread (direct as root,
 *       through qosd otherwise).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <qos/qos.h>

#include "bench-inversion.h"

typedef struct Lock {
        const char *name;
        void (*lock)(void *l);
        void (*unlock)(void *l);
        void *l;
} Lock;

static pthread_mutex_t pmutex = PTHREAD_MUTEX_INITIALIZER;
static qos_mutex_t qmutex = QOS_MUTEX_INITIALIZER;

static void p_lock(void *l) {
        pthread_mutex_lock(l);
}
static void p_unlock(void *l) {
        pthread_mutex_unlock(l);
}
static void q_lock(void *l) {
        qos_mutex_lock(l);
}
static void q_unlock(void *l) {
        qos_mutex_unlock(l);
}

static const Lock locks[] = {
        { "pthread_mutex_t", p_lock, p_unlock, &pmutex },
        { "qos_mutex_t", q_lock, q_unlock, &qmutex },
};

static volatile bool stop;
/* The holder works between holds instead of sleeping: it is always
 * runnable, as a build or an indexer is, so it gets only its weight's
 * share and no wake-up placement in its favour. */
static bool holder_busy;
static const Lock *cur;
static int holding;     /* the holder is inside its critical section */

static void set_self(qos_class_t c) {
        int r = qos_self_set_class(c, 0);
        if (r < 0) {
                fprintf(stderr, "cannot set class %s: %s\n", qos_class_to_string(c), strerror(-r));
                exit(1);
        }
}

static qos_class_t hog_class;

static void *hog(void *arg) {
        set_self(hog_class);
        while (!stop)
                ;
        return NULL;
}

static void *holder(void *arg) {
        set_self(QOS_CLASS_BACKGROUND);
        while (!stop) {
                cur->lock(cur->l);
                __atomic_store_n(&holding, 1, __ATOMIC_RELAXED);
                inversion_work_cpu_ms(1);
                __atomic_store_n(&holding, 0, __ATOMIC_RELAXED);
                cur->unlock(cur->l);
                if (holder_busy)
                        inversion_work_cpu_ms(1);
                else
                        usleep(1000);
        }
        return NULL;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p) {
        size_t i = (size_t) (p * (double) (n - 1));
        return (double) v[i] / 1e6;
}

/* A user-interactive thread takes the lock that a background holder
 * holds, beside 2 x nproc hogs of class hogs_at. */
static void contention(int seconds, qos_class_t hogs_at, bool busy, const char *title) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        int nhogs = (int) (2 * ncpu);
        size_t cap = (size_t) seconds * 400 + 16;
        uint64_t *waits = calloc(cap, sizeof(*waits));

        hog_class = hogs_at;
        holder_busy = busy;
        const char *group = bench_isolate_session();
        printf("%s: user-interactive thread, background holder (1 ms of CPU per hold, then %s),\n"
               "%d %s hogs on %ld CPUs, %d s per lock, %s;\nlock wait in ms (waited: > 10 us; w-: among those)\n",
               title, busy ? "1 ms of CPU outside" : "1 ms asleep", nhogs, qos_class_to_string(hogs_at), ncpu,
               seconds, group);
        printf("%-16s %8s %8s %8s %8s %8s %8s %8s %8s\n", "lock", "samples", "waited", "p50", "p90", "p99", "max",
               "w-p50", "w-p99");
        for (size_t k = 0; k < sizeof(locks) / sizeof(locks[0]); k++) {
                pthread_t hogs[64], h;
                cur = &locks[k];
                stop = false;
                for (int i = 0; i < nhogs && i < 64; i++)
                        pthread_create(&hogs[i], NULL, hog, NULL);
                pthread_create(&h, NULL, holder, NULL);
                set_self(QOS_CLASS_USER_INTERACTIVE);

                size_t n = 0, waited = 0;
                uint64_t end = inversion_now_ns(CLOCK_MONOTONIC) + (uint64_t) seconds * 1000000000u;
                while (inversion_now_ns(CLOCK_MONOTONIC) < end && n < cap) {
                        usleep(5000);
                        /* Come when the holder is inside: every sample is
                         * an inversion, not a lucky free lock. */
                        for (int i = 0; i < 2000 && !__atomic_load_n(&holding, __ATOMIC_RELAXED); i++)
                                usleep(50);
                        uint64_t t0 = inversion_now_ns(CLOCK_MONOTONIC);
                        cur->lock(cur->l);
                        uint64_t t1 = inversion_now_ns(CLOCK_MONOTONIC);
                        cur->unlock(cur->l);
                        waits[n++] = t1 - t0;
                        waited += t1 - t0 > 10000;
                }
                stop = true;
                pthread_join(h, NULL);
                for (int i = 0; i < nhogs && i < 64; i++)
                        pthread_join(hogs[i], NULL);
                set_self(QOS_CLASS_UTILITY);

                qsort(waits, n, sizeof(*waits), cmp_u64);
                if (n == 0)
                        printf("%-16s %8d (no sample)\n", cur->name, 0);
                else
                        printf("%-16s %8zu %8zu %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", cur->name, n, waited,
                               pct(waits, n, 0.5), pct(waits, n, 0.9), pct(waits, n, 0.99),
                               (double) waits[n - 1] / 1e6,
                               /* the waited samples are the sorted tail */
                               waited ? pct(waits + n - waited, waited, 0.5) : 0.0,
                               waited ? pct(waits + n - waited, waited, 0.99) : 0.0);
                fflush(stdout);
        }
        free(waits);
}

static void *sleeper(void *arg) {
        while (!stop)
                usleep(10000);
        return NULL;
}

/* The machine is shared: the two locks take turns, 11 runs each, timed on
 * the thread's CPU clock so that preemption is not counted; best and
 * median per lock. A second thread sleeps meanwhile: in a process with
 * one thread glibc's lock drops the bus-lock prefix (nothing to race
 * with), which no program that needs a mutex ever sees. */
#define UNCONTENDED_RUNS 11
static void uncontended(long millions) {
        enum { N_LOCKS = sizeof(locks) / sizeof(locks[0]) };
        double ns[N_LOCKS][UNCONTENDED_RUNS];
        long n = millions * 1000000;
        pthread_t other;

        stop = false;
        pthread_create(&other, NULL, sleeper, NULL);
        for (int rep = 0; rep < UNCONTENDED_RUNS; rep++)
                for (size_t k = 0; k < N_LOCKS; k++) {
                        uint64_t t0 = inversion_now_ns(CLOCK_THREAD_CPUTIME_ID);
                        for (long i = 0; i < n; i++) {
                                locks[k].lock(locks[k].l);
                                locks[k].unlock(locks[k].l);
                        }
                        ns[k][rep] = (double) (inversion_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double) n;
                }
        stop = true;
        pthread_join(other, NULL);
        printf("uncontended lock+unlock, %ld M pairs x %d runs, taking turns, 2 threads in the process\n"
               "(ns of CPU time per pair)\n", millions,
               UNCONTENDED_RUNS);
        printf("%-16s %8s %8s\n", "lock", "best", "median");
        for (size_t k = 0; k < N_LOCKS; k++) {
                for (int i = 1; i < UNCONTENDED_RUNS; i++) /* insertion sort, 11 values */
                        for (int j = i; j > 0 && ns[k][j] < ns[k][j - 1]; j--) {
                                double tmp = ns[k][j];
                                ns[k][j] = ns[k][j - 1];
                                ns[k][j - 1] = tmp;
                        }
                printf("%-16s %8.2f %8.2f\n", locks[k].name, ns[k][0], ns[k][UNCONTENDED_RUNS / 2]);
        }
}

static pid_t parked_tid;
static void *parked(void *arg) {
        /* Its own change first: overrides applied while it is still
         * setting itself make its read-back fail. */
        set_self(QOS_CLASS_BACKGROUND);
        __atomic_store_n(&parked_tid, gettid(), __ATOMIC_RELEASE);
        while (!stop)
                usleep(1000);
        return NULL;
}

static void override_cost(int count) {
        pthread_t t;
        stop = false;
        pthread_create(&t, NULL, parked, NULL);
        while (!__atomic_load_n(&parked_tid, __ATOMIC_ACQUIRE))
                usleep(1000);
        usleep(10000);
        uint64_t *v = calloc((size_t) count, sizeof(*v));
        int failed = 0;
        for (int i = 0; i < count; i++) {
                qos_override_t *o;
                uint64_t t0 = inversion_now_ns(CLOCK_MONOTONIC);
                int r = qos_override_begin(parked_tid, QOS_CLASS_UTILITY, &o);
                if (r < 0) {
                        failed++;
                        continue;
                }
                qos_override_end(o);
                v[i - failed] = inversion_now_ns(CLOCK_MONOTONIC) - t0;
        }
        int n = count - failed;
        stop = true;
        pthread_join(t, NULL);
        if (n == 0) {
                printf("override begin+end: every call failed\n");
                return;
        }
        qsort(v, (size_t) n, sizeof(*v), cmp_u64);
        printf("override begin+end (%s), %d pairs, µs: p50 %.1f  p99 %.1f\n",
               geteuid() == 0 ? "direct, CAP_SYS_NICE" : "through qosd", n, pct(v, (size_t) n, 0.5) * 1000,
               pct(v, (size_t) n, 0.99) * 1000);
        free(v);
}

int main(int argc, char **argv) {
        const char *mode = argc > 1 ? argv[1] : "inversion";
        long arg = argc > 2 ? atol(argv[2]) : 0;
        if (strcmp(mode, "inversion") == 0)
                contention(arg > 0 ? (int) arg : 10, QOS_CLASS_BACKGROUND, false, "priority inversion");
        else if (strcmp(mode, "starvation") == 0)
                contention(arg > 0 ? (int) arg : 10, QOS_CLASS_UTILITY, true, "starved holder");
        else if (strcmp(mode, "uncontended") == 0)
                uncontended(arg > 0 ? arg : 10);
        else if (strcmp(mode, "override") == 0)
                override_cost(arg > 0 ? (int) arg : 2000);
        else {
                fprintf(stderr, "usage: %s inversion|starvation [SECONDS] | uncontended [MILLIONS] | override [COUNT]\n",
                        argv[0]);
                return 2;
        }
        return 0;
}
