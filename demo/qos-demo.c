/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The demo program: an "application" with named threads, as a real one has.
 *
 *   qos-demo          threads ui (a 60 Hz frame loop with 3 ms of work per
 *                     frame), worker and indexer (busy half the time)
 *   qos-demo --hog    one busy thread: background load
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static void spin(uint64_t ns) {
        uint64_t end = now_ns() + ns;
        while (now_ns() < end)
                ;
}

static void *ui(void *arg) {
        prctl(PR_SET_NAME, "ui", 0, 0, 0);
        for (uint64_t next = now_ns(); !stop; next += 16666667) {
                struct timespec ts = { (time_t) (next / 1000000000ULL), (long) (next % 1000000000ULL) };
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
                spin(3000000);
        }
        return NULL;
}

static void *busy(void *arg) {
        prctl(PR_SET_NAME, (const char *) arg, 0, 0, 0);
        while (!stop) {
                spin(5000000);
                usleep(5000);
        }
        return NULL;
}

static void on_term(int sig) {
        stop = 1;
}

int main(int argc, char **argv) {
        if (argc > 1 && strcmp(argv[1], "--hog") == 0) {
                for (;;)
                        ;
        }
        signal(SIGTERM, on_term);
        pthread_t t[3];
        pthread_create(&t[0], NULL, ui, NULL);
        pthread_create(&t[1], NULL, busy, "worker");
        pthread_create(&t[2], NULL, busy, "indexer");
        printf("ready\n");
        fflush(stdout);
        while (!stop)
                pause();
        for (int i = 0; i < 3; i++)
                pthread_join(t[i], NULL);
        return 0;
}
