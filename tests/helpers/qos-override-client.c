/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Overrides from an unprivileged process, step by step, for
 * test-override-daemon.sh. One background "owner" thread; the main thread
 * (utility) lends to it. Each step prints one line and waits for a line on
 * stdin, so the test can look at the kernel and at qosd in between.
 *   override  begin(owner, user-interactive) -> end
 *   mutex     owner holds a qos_mutex_t, main times out on it, owner unlocks
 *   exit      begin(owner), then the owner exits without ending it
 *   front     main asks for user-interactive for itself (the test puts the
 *             process in front first), then lends it to the owner and to
 *             itself; the test moves the focus around; then both end
 *   custom    main's nice set by hand (settings that are no class),
 *             then begin(owner, user-interactive) -> end
 *   chain     a chain of qos_mutex_t through qosd: C (background) holds L2,
 *             B (utility) holds L1 and waits on L2, A (user-initiated)
 *             waits on L1; qosd lends A's class on to C, and libqos makes
 *             no call of its own for C */
#include <pthread.h>
#include <sys/resource.h>
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

static qos_mutex_t l1 = QOS_MUTEX_INITIALIZER, l2 = QOS_MUTEX_INITIALIZER;
static sem_t c_ready, b_ready, c_go;
static pid_t tid_a, tid_b, tid_c;

static int timedlock_for(qos_mutex_t *m, int seconds) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += seconds;
        return qos_mutex_timedlock(m, &ts);
}

static void *chain_c(void *arg) {
        tid_c = gettid();
        qos_self_set_class(QOS_CLASS_BACKGROUND, 0);
        qos_mutex_lock(&l2);
        sem_post(&c_ready);
        sem_wait(&c_go);
        qos_mutex_unlock(&l2);
        return NULL;
}

static void *chain_b(void *arg) {
        tid_b = gettid();
        qos_mutex_lock(&l1);
        sem_post(&b_ready);
        if (timedlock_for(&l2, 600) == 0)
                qos_mutex_unlock(&l2);
        qos_mutex_unlock(&l1);
        return NULL;
}

static void *chain_a(void *arg) {
        tid_a = gettid();
        int r = qos_self_set_class(QOS_CLASS_USER_INITIATED, 0);
        if (r != 0)
                printf("set-class %d\n", r);
        if (timedlock_for(&l1, 600) == 0)
                qos_mutex_unlock(&l1);
        return NULL;
}

/* Steps: "chain C B" (B is about to wait on L2), "waiting A" (A is about
 * to wait on L1), "released 0" once C unlocked and all three ended. */
static int chain(void) {
        pthread_t a, b, c;
        char tids[32];
        sem_init(&c_ready, 0, 0);
        sem_init(&b_ready, 0, 0);
        sem_init(&c_go, 0, 0);
        pthread_create(&c, NULL, chain_c, NULL);
        sem_wait(&c_ready);
        pthread_create(&b, NULL, chain_b, NULL);
        sem_wait(&b_ready);
        snprintf(tids, sizeof tids, "%d", (int) tid_b);
        step("chain", tid_c, tids);
        pthread_create(&a, NULL, chain_a, NULL);
        while (tid_a == 0)
                usleep(1000);
        step("waiting", tid_a, "");
        sem_post(&c_go);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        pthread_join(c, NULL);
        step("released", 0, "");
        return 0;
}

int main(int argc, char **argv) {
        pthread_t t;
        qos_override_t *o = NULL;
        int r;

        mode = argc > 1 ? argv[1] : "override";
        if (strcmp(mode, "chain") == 0)
                return chain();
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
        if (strcmp(mode, "front") == 0) {
                qos_override_t *self = NULL;
                r = qos_self_set_class(QOS_CLASS_USER_INTERACTIVE, 0);
                step("self", r, class_of(gettid()));
                r = qos_override_begin(owner_tid, QOS_CLASS_USER_INTERACTIVE, &o);
                step("lent", r, class_of(owner_tid));
                r = qos_override_begin(gettid(), QOS_CLASS_USER_INTERACTIVE, &self);
                step("lent-self", r, class_of(gettid()));
                r = qos_override_end(self);
                step("end-self", r, "");
        } else {
                if (strcmp(mode, "custom") == 0)
                        setpriority(PRIO_PROCESS, (id_t) gettid(), 3);
                r = qos_override_begin(owner_tid, QOS_CLASS_USER_INTERACTIVE, &o);
                step("begin", r, class_of(owner_tid));
        }
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
