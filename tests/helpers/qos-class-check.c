/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the kernel says about the calling thread, from inside a process:
 * for the preload tests, which must see a class from the very start, where
 * no outside observer can look in time. Each report is one line
 * "POLICY NICE SLICE_NS" from sched_getattr() on the thread itself.
 *
 *   qos-class-check job WORK_US   main() starts, WORK_US of CPU work, exit:
 *                                 prints "start REPORT" and "end REPORT"
 *   qos-class-check fork          fork() without exec: the child prints
 *                                 "child REPORT", then the parent "parent REPORT"
 *   qos-class-check thread NAME   a thread created by main, renamed NAME by
 *                                 itself (prctl): "created REPORT" before the
 *                                 rename, "renamed REPORT" after it
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "self-sched.h"

static void report(const char *what) {
        struct self_sched_attr a;
        if (self_sched_getattr(&a) < 0) {
                printf("%s error\n", what);
                return;
        }
        printf("%s %u %d %" PRIu64 "\n", what, a.sched_policy, a.sched_nice, a.sched_runtime);
        fflush(stdout);
}

static uint64_t cpu_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static void *renamer(void *name) {
        report("created");
        prctl(PR_SET_NAME, name, 0, 0, 0);
        report("renamed");
        return NULL;
}

int main(int argc, char **argv) {
        if (argc == 3 && strcmp(argv[1], "job") == 0) {
                report("start");
                uint64_t until = cpu_us() + strtoull(argv[2], NULL, 10);
                while (cpu_us() < until)
                        ;
                report("end");
                return 0;
        }
        if (argc == 2 && strcmp(argv[1], "fork") == 0) {
                pid_t pid = fork();
                if (pid < 0)
                        return 1;
                if (pid == 0) {
                        report("child");
                        _exit(0);
                }
                waitpid(pid, NULL, 0);
                report("parent");
                return 0;
        }
        if (argc == 3 && strcmp(argv[1], "thread") == 0) {
                pthread_t t;
                if (pthread_create(&t, NULL, renamer, argv[2]) != 0)
                        return 1;
                pthread_join(t, NULL);
                return 0;
        }
        fprintf(stderr, "usage: qos-class-check job WORK_US | fork | thread NAME\n");
        return 2;
}
