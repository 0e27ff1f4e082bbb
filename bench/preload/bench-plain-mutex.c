/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An unmodified pthread program for the preload's lending figure
 * (run-lend-bench.sh): it never calls libqos; it names its threads and
 * the rules give them classes (ui-probe: user-interactive, bg-holder:
 * background, hog: utility).
 *
 *   bench-plain-mutex inversion SECONDS
 *       ui-probe takes a pthread_mutex_t every 5 ms while bg-holder is
 *       inside it for 1 ms of CPU work, 2 x nproc utility hogs keep the
 *       CPUs busy: they preempt the background holder, not the probe. Prints every wait in µs, one per line, then a
 *       summary line on stderr.
 *   bench-plain-mutex uncontended MILLIONS
 *       CPU time per lock+unlock pair on one pthread_mutex_t, a second
 *       thread alive (with one thread glibc drops the bus lock); prints
 *       ns per pair.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "bench-inversion.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile bool stop;
static int holding;

static void *hog(void *arg) {
        prctl(PR_SET_NAME, "hog");
        while (!stop)
                ;
        return NULL;
}

static void *holder(void *arg) {
        prctl(PR_SET_NAME, "bg-holder");
        while (!stop) {
                pthread_mutex_lock(&lock);
                __atomic_store_n(&holding, 1, __ATOMIC_RELAXED);
                inversion_work_cpu_ms(1);
                __atomic_store_n(&holding, 0, __ATOMIC_RELAXED);
                pthread_mutex_unlock(&lock);
                usleep(1000);
        }
        return NULL;
}

static int inversion(int seconds) {
        int nhogs = (int) (2 * sysconf(_SC_NPROCESSORS_ONLN));
        pthread_t hogs[64], h;
        size_t n = 0, waited = 0;
        const char *group = bench_isolate_session();

        if (nhogs > 64)
                nhogs = 64;
        prctl(PR_SET_NAME, "ui-probe");
        for (int i = 0; i < nhogs; i++)
                pthread_create(&hogs[i], NULL, hog, NULL);
        pthread_create(&h, NULL, holder, NULL);
        uint64_t end = inversion_now_ns(CLOCK_MONOTONIC) + (uint64_t) seconds * 1000000000u;
        while (inversion_now_ns(CLOCK_MONOTONIC) < end) {
                usleep(5000);
                /* Come while the holder is inside: every sample an inversion. */
                for (int i = 0; i < 2000 && !__atomic_load_n(&holding, __ATOMIC_RELAXED); i++)
                        usleep(50);
                uint64_t t0 = inversion_now_ns(CLOCK_MONOTONIC);
                pthread_mutex_lock(&lock);
                uint64_t t1 = inversion_now_ns(CLOCK_MONOTONIC);
                pthread_mutex_unlock(&lock);
                printf("%.1f\n", (double) (t1 - t0) / 1e3);
                n++;
                waited += t1 - t0 > 10000;
        }
        stop = true;
        pthread_join(h, NULL);
        for (int i = 0; i < nhogs; i++)
                pthread_join(hogs[i], NULL);
        fprintf(stderr, "%zu samples, %zu waited > 10 us, %d hogs, %s\n", n, waited, nhogs, group);
        return 0;
}

static void *sleeper(void *arg) {
        while (!stop)
                usleep(10000);
        return NULL;
}

static int uncontended(long millions) {
        long n = millions * 1000000;
        pthread_t other;

        pthread_create(&other, NULL, sleeper, NULL);
        uint64_t t0 = inversion_now_ns(CLOCK_THREAD_CPUTIME_ID);
        for (long i = 0; i < n; i++) {
                pthread_mutex_lock(&lock);
                pthread_mutex_unlock(&lock);
        }
        double ns = (double) (inversion_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double) n;
        stop = true;
        pthread_join(other, NULL);
        printf("%.3f\n", ns);
        return 0;
}

int main(int argc, char **argv) {
        long arg = argc > 2 ? atol(argv[2]) : 0;
        if (argc > 1 && strcmp(argv[1], "inversion") == 0)
                return inversion(arg > 0 ? (int) arg : 10);
        if (argc > 1 && strcmp(argv[1], "uncontended") == 0)
                return uncontended(arg > 0 ? arg : 10);
        fprintf(stderr, "usage: %s inversion [SECONDS] | uncontended [MILLIONS]\n", argv[0]);
        return 2;
}
