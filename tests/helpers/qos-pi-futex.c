/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Does a kernel PI futex lend anything to a SCHED_NORMAL owner? An owner
 * at nice 19 takes a FUTEX_LOCK_PI lock; a waiter (nice -10, or SCHED_FIFO
 * 10 as the control that shows the measurement can see a boost) blocks on
 * it. Prints the owner's prio and se.load.weight from
 * /proc/self/task/TID/sched before and while the waiter blocks:
 *   normal|fifo before_prio before_weight during_prio during_weight
 * Run as root. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint32_t word;
static sem_t owner_locked, owner_release;
static pid_t owner_tid, waiter_tid;
static int waiter_fifo;

static long futex(int op) {
        return syscall(SYS_futex, &word, op, 0, NULL, NULL, 0);
}

static void *owner(void *arg) {
        owner_tid = gettid();
        if (setpriority(PRIO_PROCESS, 0, 19) < 0 || futex(FUTEX_LOCK_PI) < 0) {
                perror("owner");
                exit(1);
        }
        sem_post(&owner_locked);
        sem_wait(&owner_release);
        futex(FUTEX_UNLOCK_PI);
        return NULL;
}

static void *waiter(void *arg) {
        waiter_tid = gettid();
        if (waiter_fifo) {
                struct sched_param sp = { .sched_priority = 10 };
                if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
                        perror("waiter: SCHED_FIFO");
                        exit(1);
                }
        } else if (setpriority(PRIO_PROCESS, 0, -10) < 0) {
                perror("waiter: nice -10");
                exit(1);
        }
        if (futex(FUTEX_LOCK_PI) < 0) {
                perror("waiter: FUTEX_LOCK_PI");
                exit(1);
        }
        futex(FUTEX_UNLOCK_PI);
        return NULL;
}

static long sched_field(pid_t tid, const char *name) {
        char path[64], line[256];
        snprintf(path, sizeof(path), "/proc/self/task/%d/sched", tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        long v = -1;
        size_t n = strlen(name);
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, name, n) == 0 && (line[n] == ' ' || line[n] == ':')) {
                        char *colon = strchr(line, ':');
                        v = colon ? strtol(colon + 1, NULL, 10) : -1;
                        break;
                }
        fclose(f);
        return v;
}

/* The waiter sleeps in futex(2), blocked on the owner's rt_mutex. */
static int waiter_blocked(void) {
        char path[64], buf[64];
        snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", waiter_tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return 0;
        int blocked = fgets(buf, sizeof(buf), f) && atoi(buf) == SYS_futex;
        fclose(f);
        return blocked;
}

int main(int argc, char **argv) {
        pthread_t o, w;

        waiter_fifo = argc > 1 && strcmp(argv[1], "fifo") == 0;
        sem_init(&owner_locked, 0, 0);
        sem_init(&owner_release, 0, 0);
        pthread_create(&o, NULL, owner, NULL);
        sem_wait(&owner_locked);
        long prio0 = sched_field(owner_tid, "prio"), weight0 = sched_field(owner_tid, "se.load.weight");

        pthread_create(&w, NULL, waiter, NULL);
        for (int i = 0; i < 5000 && !(waiter_tid && waiter_blocked()); i++)
                usleep(1000);
        if (!waiter_blocked()) {
                fprintf(stderr, "the waiter never blocked\n");
                return 1;
        }
        usleep(20000); /* let any boost settle */
        long prio1 = sched_field(owner_tid, "prio"), weight1 = sched_field(owner_tid, "se.load.weight");

        sem_post(&owner_release);
        pthread_join(o, NULL);
        pthread_join(w, NULL);
        printf("%s %ld %ld %ld %ld\n", waiter_fifo ? "fifo" : "normal", prio0, weight0, prio1, weight1);
        return 0;
}
