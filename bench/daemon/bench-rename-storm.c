/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program that renames its threads as fast as it can, for
 * run-rename-bench.sh: THREADS idle threads, then for SECONDS either the
 * main thread renames itself in a loop ("main": each rename changes the
 * name the rules match, so every thread is evaluated again) or every
 * thread does ("all"). Prints "ready" once the threads exist, and at the
 * end "renames N".
 *
 *   bench-rename-storm THREADS SECONDS main|all
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static atomic_bool stop, go;
static atomic_long renames;

static void rename_loop(void) {
        static const char *const names[] = { "storm-a", "storm-b" };
        long n = 0;
        while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
                prctl(PR_SET_NAME, names[n & 1], 0, 0, 0);
                n++;
        }
        atomic_fetch_add(&renames, n);
}

static void *worker(void *arg) {
        bool all = arg != NULL;
        while (!atomic_load(&go) && !atomic_load(&stop))
                usleep(1000);
        if (all)
                rename_loop();
        while (!atomic_load(&stop))
                usleep(10000);
        return NULL;
}

int main(int argc, char **argv) {
        if (argc != 4) {
                fprintf(stderr, "usage: bench-rename-storm THREADS SECONDS main|all\n");
                return 2;
        }
        long t = strtol(argv[1], NULL, 10), secs = strtol(argv[2], NULL, 10);
        bool all = strcmp(argv[3], "all") == 0;
        pthread_t *th = calloc((size_t) t, sizeof *th);
        if (!th || t <= 0 || secs <= 0)
                return 2;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        for (long i = 0; i < t; i++)
                if (pthread_create(&th[i], &attr, worker, all ? (void *) 1 : NULL) != 0) {
                        perror("pthread_create");
                        return 1;
                }
        printf("ready\n");
        fflush(stdout);
        /* The go-ahead: a line on stdin. */
        char line[16];
        if (!fgets(line, sizeof line, stdin))
                return 1;
        atomic_store(&go, true);
        if (!all) {
                struct timespec end;
                clock_gettime(CLOCK_MONOTONIC, &end);
                end.tv_sec += secs;
                long n = 0;
                for (;;) {
                        struct timespec now;
                        prctl(PR_SET_NAME, n & 1 ? "storm-main-b" : "storm-main-a", 0, 0, 0);
                        if (++n % 1024 == 0) {
                                clock_gettime(CLOCK_MONOTONIC, &now);
                                if (now.tv_sec > end.tv_sec ||
                                    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
                                        break;
                        }
                }
                atomic_fetch_add(&renames, n);
        } else
                sleep((unsigned) secs);
        atomic_store(&stop, true);
        for (long i = 0; i < t; i++)
                pthread_join(th[i], NULL);
        printf("renames %ld\n", atomic_load(&renames));
        fflush(stdout);
        /* Stay, with the threads gone, until killed: qosd's backlog shows. */
        pause();
        return 0;
}
