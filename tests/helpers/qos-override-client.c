/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Overrides from an unprivileged process, step by step, for
 * test-override-daemon.sh. One background "owner" thread; the main thread
 * (utility) lends to it. Each step prints one line and waits for a line on
 * stdin, so the test can look at the kernel and at qosd in between.
 *   override  begin(owner, user-interactive) -> end
 *   mutex     owner holds a qos_mutex_t, main times out on it, owner unlocks
 *   exit      begin(owner), then the owner exits without ending it */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <qos/qos.h>

static sem_t ready, go;
static pid_t owner_tid;
static qos_mutex_t mutex = QOS_MUTEX_INITIALIZER;
static const char *mode;

/* Print "what a b" and wait for the test's go-ahead. */
static void step(const char *what, long a, const char *b) {
        char line[64];
        printf("%s %ld%s%s\n", what, a, *b ? " " : "", b);
        fflush(stdout);
        if (!fgets(line, sizeof(line), stdin))
                _exit(2);
}

static const char *class_of(pid_t tid) {
        qos_class_t c = QOS_CLASS_UNSPECIFIED;
        qos_thread_get_class(tid, &c, NULL);
        return qos_class_to_string(c);
}

static void *owner(void *arg) {
        owner_tid = gettid();
        qos_self_set_class(QOS_CLASS_BACKGROUND, 0);
        if (strcmp(mode, "mutex") == 0)
                qos_mutex_lock(&mutex);
        sem_post(&ready);
        sem_wait(&go);
        if (strcmp(mode, "mutex") == 0) {
                qos_mutex_unlock(&mutex);
                printf("unlocked %s\n", class_of(gettid()));
                fflush(stdout);
        }
        return NULL;
}

int main(int argc, char **argv) {
        pthread_t t;
        qos_override_t *o = NULL;
        int r;

        mode = argc > 1 ? argv[1] : "override";
        sem_init(&ready, 0, 0);
        sem_init(&go, 0, 0);
        pthread_create(&t, NULL, owner, NULL);
        sem_wait(&ready);
        step("owner", owner_tid, class_of(owner_tid));

        if (strcmp(mode, "mutex") == 0) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_sec += 1;
                r = qos_mutex_timedlock(&mutex, &ts);
                step("timedlock", r, class_of(owner_tid));
                sem_post(&go);
                pthread_join(t, NULL);
                return 0;
        }
        r = qos_override_begin(owner_tid, QOS_CLASS_USER_INTERACTIVE, &o);
        step("begin", r, class_of(owner_tid));
        if (strcmp(mode, "exit") == 0) {
                sem_post(&go);
                pthread_join(t, NULL);
                step("joined", 0, "");
                step("end-after-exit", qos_override_end(o), "");
                return 0;
        }
        r = qos_override_end(o);
        step("end", r, class_of(owner_tid));
        sem_post(&go);
        pthread_join(t, NULL);
        return 0;
}
