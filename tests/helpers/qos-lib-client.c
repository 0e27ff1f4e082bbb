/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program that uses libqos as an application would, for the tests. It
 * reads one command per line on stdin and answers each with one line, so
 * that a test can look at the threads from outside (/proc) between steps.
 *
 *   self-set CLASS RELPRI          qos_self_set_class()      -> RESULT
 *   self-get                       qos_self_get_class()      -> CLASS RELPRI
 *   self / main                    qos_class_self() / qos_class_main() -> CLASS
 *   tid                            the calling thread's TID  -> TID
 *   spawn NAME                     a plain pthread_create() thread -> TID
 *   spawn-from PARENT NAME         the same, created by thread PARENT (so it
 *                                  starts with what PARENT has) -> TID
 *   tid-set NAME|TID CLASS RELPRI  qos_thread_set_class()    -> RESULT
 *   tid-get NAME|TID               qos_thread_get_class()    -> CLASS RELPRI | RESULT
 *   pthread-set NAME CLASS RELPRI  qos_pthread_set_class()   -> RESULT
 *   pthread-get NAME               qos_pthread_get_class()   -> CLASS RELPRI | RESULT
 *   attr-create NAME CLASS RELPRI  qos_pthread_create() with a class on the
 *                                  attribute -> RESULT TID CLASS, the class
 *                                  the new thread saw first thing (or RESULT)
 *   darwin-self-set CLASS RELPRI   pthread_set_qos_class_self_np() -> errno name or 0
 *   darwin-get NAME                pthread_get_qos_class_np() -> CLASS RELPRI
 *   threads                        how many threads the process has
 *   quit
 *
 * RESULT is 0, "held" (QOS_REQUEST_HELD) or the errno name ("ENOTCONN").
 * CLASS is a canonical name or "unspecified". Bad input answers "usage".
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qos/darwin.h>

#define MAX_THREADS 64

typedef struct Worker {
        char name[32];
        pid_t tid;
        pthread_t thread;
        qos_class_t seen;       /* qos_class_self() as the thread's first act */
        sem_t started;
        sem_t create;           /* posted: create `child` */
        struct Worker *child;
} Worker;

static Worker workers[MAX_THREADS];
static int n_workers;

static const char *result_name(int r) {
        if (r == 0)
                return "0";
        if (r == QOS_REQUEST_HELD)
                return "held";
        return strerrorname_np(r < 0 ? -r : r) ?: "unknown";
}

static const char *class_name(qos_class_t c) {
        return qos_class_to_string(c) ?: "invalid";
}

static void *worker_main(void *arg) {
        Worker *w = arg;
        w->seen = qos_class_self();
        w->tid = gettid();
        sem_post(&w->started);
        for (;;) {
                if (sem_wait(&w->create) == 0)
                        pthread_create(&w->child->thread, NULL, worker_main, w->child);
        }
        return NULL;
}

static Worker *worker_new(const char *name) {
        if (n_workers >= MAX_THREADS)
                return NULL;
        Worker *w = &workers[n_workers];
        snprintf(w->name, sizeof w->name, "%s", name);
        sem_init(&w->started, 0, 0);
        sem_init(&w->create, 0, 0);
        return w;
}

/* A new worker w, created by parent (NULL: this thread); its TID. */
static pid_t spawn(Worker *parent, Worker *w) {
        if (parent) {
                parent->child = w;
                sem_post(&parent->create);
        } else
                pthread_create(&w->thread, NULL, worker_main, w);
        sem_wait(&w->started);
        n_workers++;
        return w->tid;
}

static Worker *worker_find(const char *name) {
        for (int i = 0; i < n_workers; i++)
                if (strcmp(workers[i].name, name) == 0)
                        return &workers[i];
        return NULL;
}

/* A worker's TID by name, or a number taken as a TID as it is. */
static pid_t target_tid(const char *s) {
        Worker *w = worker_find(s);
        return w ? w->tid : (pid_t) atoi(s);
}

static int count_threads(void) {
        DIR *d = opendir("/proc/self/task");
        struct dirent *de;
        int n = 0;
        if (!d)
                return -1;
        while ((de = readdir(d)))
                n += de->d_name[0] != '.';
        closedir(d);
        return n;
}

static void print_class(int r, qos_class_t c, int relpri) {
        if (r < 0)
                printf("%s\n", result_name(r));
        else
                printf("%s %d\n", class_name(c), relpri);
}

static int parse_class(const char *s, qos_class_t *c) {
        /* "raw:N" passes a number unchecked, to test invalid values. */
        if (strncmp(s, "raw:", 4) == 0) {
                *c = (qos_class_t) strtol(s + 4, NULL, 0);
                return 0;
        }
        return qos_class_from_string(s, c);
}

static void attr_create(const char *name, qos_class_t c, int relpri) {
        Worker *w = worker_new(name);
        pthread_attr_t attr;
        int r;

        if (!w) {
                printf("usage\n");
                return;
        }
        qos_attr_init(&attr);
        r = qos_attr_set_class(&attr, c, relpri);
        if (r >= 0)
                r = qos_pthread_create(&w->thread, &attr, worker_main, w);
        qos_attr_destroy(&attr);
        if (r < 0) {
                printf("%s\n", result_name(r));
                return;
        }
        sem_wait(&w->started);
        n_workers++;
        printf("%s %d %s\n", result_name(r), (int) w->tid, class_name(w->seen));
}

/* "CLASS RELPRI" at argv[i], argv[i+1]. */
static int parse_request(char **argv, int argc, int i, qos_class_t *c, int *relpri) {
        if (argc != i + 2 || parse_class(argv[i], c) < 0)
                return -EINVAL;
        *relpri = atoi(argv[i + 1]);
        return 0;
}

static void command(char *line) {
        char *argv[4], *save = NULL;
        int argc = 0, relpri = 0, r;
        qos_class_t c = QOS_CLASS_UNSPECIFIED;
        Worker *w = NULL, *child;

        for (char *t = strtok_r(line, " \t\n", &save); t && argc < 4; t = strtok_r(NULL, " \t\n", &save))
                argv[argc++] = t;
        if (argc == 0) {
                printf("usage\n");
                fflush(stdout);
                return;
        }
        const char *op = argv[0];
        if (argc >= 2)
                w = worker_find(argv[1]);

        if (strcmp(op, "self-set") == 0 && parse_request(argv, argc, 1, &c, &relpri) == 0)
                printf("%s\n", result_name(qos_self_set_class(c, relpri)));
        else if (strcmp(op, "darwin-self-set") == 0 && parse_request(argv, argc, 1, &c, &relpri) == 0)
                printf("%s\n", result_name(pthread_set_qos_class_self_np(c, relpri)));
        else if (strcmp(op, "self-get") == 0) {
                r = qos_self_get_class(&c, &relpri);
                print_class(r, c, relpri);
        } else if (strcmp(op, "self") == 0)
                printf("%s\n", class_name(qos_class_self()));
        else if (strcmp(op, "main") == 0)
                printf("%s\n", class_name(qos_class_main()));
        else if (strcmp(op, "tid") == 0)
                printf("%d\n", (int) gettid());
        else if (strcmp(op, "spawn") == 0 && argc == 2 && !w && (w = worker_new(argv[1])))
                printf("%d\n", (int) spawn(NULL, w));
        else if (strcmp(op, "spawn-from") == 0 && argc == 3 && w && !worker_find(argv[2]) &&
                 (child = worker_new(argv[2])))
                printf("%d\n", (int) spawn(w, child));
        else if (strcmp(op, "tid-set") == 0 && parse_request(argv, argc, 2, &c, &relpri) == 0)
                printf("%s\n", result_name(qos_thread_set_class(target_tid(argv[1]), c, relpri)));
        else if (strcmp(op, "tid-get") == 0 && argc == 2) {
                r = qos_thread_get_class(target_tid(argv[1]), &c, &relpri);
                print_class(r, c, relpri);
        } else if (strcmp(op, "pthread-set") == 0 && w && parse_request(argv, argc, 2, &c, &relpri) == 0)
                printf("%s\n", result_name(qos_pthread_set_class(w->thread, c, relpri)));
        else if (strcmp(op, "pthread-get") == 0 && w && argc == 2) {
                r = qos_pthread_get_class(w->thread, &c, &relpri);
                print_class(r, c, relpri);
        } else if (strcmp(op, "darwin-get") == 0 && w && argc == 2) {
                r = pthread_get_qos_class_np(w->thread, &c, &relpri);
                print_class(-r, c, relpri);
        } else if (strcmp(op, "attr-create") == 0 && !w && parse_request(argv, argc, 2, &c, &relpri) == 0)
                attr_create(argv[1], c, relpri);
        else if (strcmp(op, "threads") == 0)
                printf("%d\n", count_threads());
        else
                printf("usage\n");
        fflush(stdout);
}

int main(void) {
        char line[256];

        while (fgets(line, sizeof line, stdin)) {
                if (strncmp(line, "quit", 4) == 0)
                        break;
                command(line);
        }
        return 0;
}
