/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A multi-threaded process for the tests: one thread per NAME argument,
 * each named from inside itself (as real programs do), idling until the
 * process is told to stop. Prints "TID NAME" per thread, then "ready".
 *
 *   qos-test-threads [--churn] [--busy NAME] [--commands] NAME...
 *
 * --busy NAME one more thread, named NAME, spins on the CPU without pause
 *             (load that shows in CPU shares and run-queue waits).
 * --churn     one more thread keeps creating threads that exit at once, so
 *             that tools acting on "all threads" meet threads that vanish.
 * --commands  read commands from stdin: "spawn NAME", "spawn-from PARENT
 *             NAME" (thread PARENT creates it, so it inherits what PARENT
 *             has), "rename OLD NEW", "quit"; each answers with "TID NAME"
 *             or "ok".
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MAX_THREADS 256

typedef struct Worker {
        char name[16];
        pid_t tid;
        pthread_t thread;
} Worker;

static Worker workers[MAX_THREADS];
static int n_workers;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;

/* One spawn-from request at a time: the worker it names creates a thread. */
static struct {
        Worker *from;
        char name[16];
        bool done;
} request;
static pthread_mutex_t request_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t request_cond = PTHREAD_COND_INITIALIZER;

static Worker *spawn(const char *name);

static void *worker_main(void *arg) {
        Worker *w = arg;
        prctl(PR_SET_NAME, w->name, 0, 0, 0);
        pthread_mutex_lock(&lock);
        w->tid = gettid();
        pthread_cond_broadcast(&started);
        pthread_mutex_unlock(&lock);
        for (;;) {
                char name[16];
                pthread_mutex_lock(&request_lock);
                while (request.from != w)
                        pthread_cond_wait(&request_cond, &request_lock);
                memcpy(name, request.name, sizeof name);
                pthread_mutex_unlock(&request_lock);
                bool ok = spawn(name) != NULL;
                pthread_mutex_lock(&request_lock);
                request.from = NULL;
                request.done = ok;
                pthread_cond_broadcast(&request_cond);
                pthread_mutex_unlock(&request_lock);
        }
        return NULL;
}

/* Ask worker `from` to create thread `name`; wait until it has. */
static bool spawn_from(Worker *from, const char *name) {
        pthread_mutex_lock(&request_lock);
        snprintf(request.name, sizeof request.name, "%s", name);
        request.from = from;
        pthread_cond_broadcast(&request_cond);
        while (request.from)
                pthread_cond_wait(&request_cond, &request_lock);
        bool ok = request.done;
        pthread_mutex_unlock(&request_lock);
        return ok;
}

static Worker *find_worker(const char *name) {
        for (int i = 0; i < n_workers; i++)
                if (strcmp(workers[i].name, name) == 0)
                        return &workers[i];
        return NULL;
}

static Worker *spawn(const char *name) {
        pthread_mutex_lock(&lock);
        if (n_workers >= MAX_THREADS) {
                pthread_mutex_unlock(&lock);
                return NULL;
        }
        Worker *w = &workers[n_workers++];
        pthread_mutex_unlock(&lock);
        snprintf(w->name, sizeof w->name, "%s", name);
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
                return NULL;
        pthread_mutex_lock(&lock);
        while (w->tid == 0)
                pthread_cond_wait(&started, &lock);
        pthread_mutex_unlock(&lock);
        printf("%d %s\n", (int) w->tid, w->name);
        return w;
}

static void *short_lived(void *arg) {
        return arg;
}

static void *churn_main(void *arg) {
        prctl(PR_SET_NAME, "churn", 0, 0, 0);
        for (;;) {
                pthread_t t;
                if (pthread_create(&t, NULL, short_lived, NULL) == 0)
                        pthread_join(t, NULL);
        }
        return NULL;
}

static void *busy_main(void *arg) {
        prctl(PR_SET_NAME, (const char *) arg, 0, 0, 0);
        for (volatile unsigned long n = 0;; n++)
                ;
        return NULL;
}

static int run_commands(void) {
        char line[128], a[32], b[32] = "";
        while (fgets(line, sizeof line, stdin)) {
                if (sscanf(line, "spawn-from %31s %31s", a, b) == 2) {
                        Worker *from = find_worker(a);
                        if (!from || !spawn_from(from, b))
                                printf("error\n");
                } else if (sscanf(line, "spawn %31s", a) == 1) {
                        if (!spawn(a))
                                printf("error\n");
                } else if (sscanf(line, "rename %31s %31s", a, b) == 2) {
                        Worker *w = find_worker(a);
                        if (w) {
                                memcpy(w->name, b, sizeof w->name - 1);
                                pthread_setname_np(w->thread, w->name);
                                printf("%d %s\n", (int) w->tid, w->name);
                        } else
                                printf("error\n");
                } else if (strncmp(line, "quit", 4) == 0)
                        return 0;
                else
                        printf("error\n");
                fflush(stdout);
        }
        return 0;
}

int main(int argc, char **argv) {
        bool churn = false, commands = false, main_exits = false;
        const char *busy = NULL;
        int i;

        for (i = 1; i < argc && argv[i][0] == '-'; i++) {
                if (strcmp(argv[i], "--churn") == 0)
                        churn = true;
                else if (strcmp(argv[i], "--commands") == 0)
                        commands = true;
                else if (strcmp(argv[i], "--main-exits") == 0)
                        main_exits = true;
                else if (strcmp(argv[i], "--busy") == 0 && i + 1 < argc)
                        busy = argv[++i];
                else {
                        fprintf(stderr, "usage: %s [--churn] [--busy NAME] [--commands] [--main-exits] NAME...\n", argv[0]);
                        return 2;
                }
        }
        for (; i < argc; i++)
                if (!spawn(argv[i])) {
                        fprintf(stderr, "cannot start thread %s\n", argv[i]);
                        return 1;
                }
        if (churn) {
                pthread_t t;
                pthread_create(&t, NULL, churn_main, NULL);
        }
        if (busy) {
                pthread_t t;
                pthread_create(&t, NULL, busy_main, (void *) busy);
        }
        printf("ready\n");
        fflush(stdout);
        if (commands)
                return run_commands();
        if (main_exits) {
                while (getchar() != EOF)
                        ;
                pthread_exit(NULL);
        }
        for (;;)
                pause();
}
