/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Thread renames for the daemon soak: T threads rename themselves N times
 * in all, each cycling through the NAMEs from its own offset, with PACE_US
 * between two renames of one thread (so that the renames are handled one
 * by one rather than lost in an overflowing queue).
 *
 *   qos-rename-storm N T PACE_US NAME...
 *
 * Prints "TID NAME" per thread with its final name, then "done", then
 * waits until killed (the threads stay, with their last names).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

typedef struct Renamer {
        pthread_t thread;
        pid_t tid;
        long index, count;
        const char *last;
} Renamer;

static char **names;
static long n_names, pace_us;
static pthread_barrier_t finished;

static void *renamer_main(void *arg) {
        Renamer *r = arg;
        r->tid = gettid();
        for (long j = 0; j < r->count; j++) {
                r->last = names[(r->index + j) % n_names];
                prctl(PR_SET_NAME, r->last, 0, 0, 0);
                if (pace_us > 0)
                        usleep((useconds_t) pace_us);
        }
        pthread_barrier_wait(&finished);
        for (;;)
                pause();
        return NULL;
}

int main(int argc, char **argv) {
        if (argc < 6) {
                fprintf(stderr, "usage: qos-rename-storm N T PACE_US NAME NAME...\n");
                return 2;
        }
        long n = strtol(argv[1], NULL, 10), t = strtol(argv[2], NULL, 10);
        pace_us = strtol(argv[3], NULL, 10);
        names = argv + 4;
        n_names = argc - 4;
        if (n < 0 || t <= 0 || t > 1024 || pace_us < 0)
                return 2;
        Renamer *rs = calloc((size_t) t, sizeof *rs);
        if (!rs || pthread_barrier_init(&finished, NULL, (unsigned) t + 1) != 0)
                return 1;
        for (long i = 0; i < t; i++) {
                rs[i].index = i;
                rs[i].count = n / t + (i < n % t);
                rs[i].last = "(none)";
                if (pthread_create(&rs[i].thread, NULL, renamer_main, &rs[i]) != 0) {
                        perror("pthread_create");
                        return 1;
                }
        }
        pthread_barrier_wait(&finished);
        for (long i = 0; i < t; i++)
                printf("%d %s\n", (int) rs[i].tid, rs[i].last);
        printf("done\n");
        fflush(stdout);
        for (;;)
                pause();
}
