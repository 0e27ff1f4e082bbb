/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Many threads of mixed classes hammer a few qos_mutex_t for a fixed
 * time, with lock, trylock and 1 ms timedlock, plus a pair that passes a
 * turn back and forth through a qos_cond_t without timeouts (a lost
 * wake-up stops it for good). Fails on: two threads inside one critical
 * section, a lost increment, a thread that does not finish within 30 s of
 * the end (deadlock or lost wake-up), a thread not at its base settings
 * after its last unlock, or an override left in the registry.
 * QOS_STRESS_SECONDS (default 5) sets the duration. As root the loans are
 * applied directly and the classes are all four; as another user (with
 * qosd running, test-mutex-stress-daemon.sh) they go through qosd and the
 * classes are the two a user may take: utility and background. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lib/override.h"
#include "qos/qos.h"
#include "core/task-attr.h"

#define WORKERS 16
#define MUTEXES 3

static const qos_class_t root_classes[] = {
        QOS_CLASS_USER_INTERACTIVE, QOS_CLASS_USER_INITIATED, QOS_CLASS_UTILITY, QOS_CLASS_BACKGROUND,
};
static const qos_class_t user_classes[] = {
        QOS_CLASS_UTILITY, QOS_CLASS_BACKGROUND, QOS_CLASS_UTILITY, QOS_CLASS_BACKGROUND,
};
static const qos_class_t *classes = root_classes;

static struct {
        qos_mutex_t mutex;
        int inside;             /* guarded by mutex */
        unsigned long count;    /* guarded by mutex */
} shared[MUTEXES];

static qos_mutex_t turn_mutex = QOS_MUTEX_INITIALIZER;
static qos_cond_t turn_cond = QOS_COND_INITIALIZER;
static int turn;                /* guarded by turn_mutex: 0 or 1 */
static unsigned long rounds;    /* guarded by turn_mutex */

static volatile bool stop;
static pthread_barrier_t all_done;
static int failures;

typedef struct Worker {
        pthread_t thread;
        int index;
        unsigned long acquired[MUTEXES];
        unsigned long timeouts, busy;
        bool done, base_ok;
} Worker;

static void failure(const char *what, int index) {
        fprintf(stderr, "FAIL: worker %d: %s\n", index, what);
        __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
}

static struct timespec in_ms(long ms) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        return ts;
}

static void spin_us(unsigned us) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        do
                clock_gettime(CLOCK_MONOTONIC, &b);
        while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < (long) us);
}

static bool same_settings(const TaskAttr *a, const TaskAttr *b) {
        return a->policy == b->policy && a->nice == b->nice && a->slice_ns == b->slice_ns &&
               a->ioprio == b->ioprio && a->timer_slack_ns == b->timer_slack_ns;
}

static void *worker_main(void *arg) {
        Worker *w = arg;
        unsigned seed = (unsigned) w->index * 7919u + 1;
        TaskAttr base, now;

        if (qos_self_set_class(classes[w->index % 4], 0) < 0 || task_attr_read(gettid(), &base) < 0) {
                failure("cannot set up its class", w->index);
                return NULL;
        }
        while (!stop) {
                int i = rand_r(&seed) % MUTEXES, mode = rand_r(&seed) % 20, r;
                if (mode < 3)
                        r = qos_mutex_trylock(&shared[i].mutex);
                else if (mode < 6) {
                        struct timespec ts = in_ms(1);
                        r = qos_mutex_timedlock(&shared[i].mutex, &ts);
                } else
                        r = qos_mutex_lock(&shared[i].mutex);
                if (r == -EBUSY) {
                        w->busy++;
                        continue;
                }
                if (r == -ETIMEDOUT) {
                        w->timeouts++;
                        continue;
                }
                if (r < 0) {
                        failure("lock failed", w->index);
                        break;
                }
                if (shared[i].inside++ != 0)
                        failure("two threads in one critical section", w->index);
                shared[i].count++;
                w->acquired[i]++;
                spin_us(rand_r(&seed) % 50);
                shared[i].inside--;
                qos_mutex_unlock(&shared[i].mutex);
        }
        /* After the last unlock nothing lent to us may remain. A lender
         * still applying its loan when we unlocked puts the base back as
         * soon as it sees the loan ended (override_settle()); once every
         * worker is past its last lock, every such lender is done. */
        pthread_barrier_wait(&all_done);
        w->base_ok = task_attr_read(gettid(), &now) >= 0 && same_settings(&now, &base);
        if (!w->base_ok)
                failure("not at its base settings at the end", w->index);
        __atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
        return NULL;
}

/* Two threads, one user-interactive and one background, pass the turn. */
static void *ping_pong(void *arg) {
        int me = (int) (long) arg;
        if (qos_self_set_class(me ? QOS_CLASS_BACKGROUND : classes[0], 0) < 0) {
                failure("ping-pong cannot set its class", -1);
                return NULL;
        }
        qos_mutex_lock(&turn_mutex);
        for (;;) {
                while (turn != me && !stop)
                        qos_cond_wait(&turn_cond, &turn_mutex);
                if (stop)
                        break;
                turn = !me;
                rounds++;
                qos_cond_signal(&turn_cond);
        }
        qos_cond_broadcast(&turn_cond);
        qos_mutex_unlock(&turn_mutex);
        return NULL;
}

int main(void) {
        const char *s = getenv("QOS_STRESS_SECONDS");
        int seconds = s ? atoi(s) : 5;
        static Worker workers[WORKERS];
        pthread_t pp[2];

        if (geteuid() != 0) {
                if (!getenv("QOS_STRESS_VIA_QOSD")) {
                        printf("SKIP: needs root, or a user with qosd running (QOS_STRESS_VIA_QOSD=1)\n");
                        return 77;
                }
                classes = user_classes;
        }
        for (int i = 0; i < MUTEXES; i++)
                qos_mutex_init(&shared[i].mutex);
        pthread_barrier_init(&all_done, NULL, WORKERS);
        for (int i = 0; i < WORKERS; i++) {
                workers[i].index = i;
                if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
                        return 1;
        }
        for (long i = 0; i < 2; i++)
                if (pthread_create(&pp[i], NULL, ping_pong, (void *) i) != 0)
                        return 1;

        sleep(seconds);
        stop = true;
        /* The ping-pong pair may be asleep waiting for its turn. */
        qos_mutex_lock(&turn_mutex);
        qos_cond_broadcast(&turn_cond);
        qos_mutex_unlock(&turn_mutex);

        struct timespec limit;
        clock_gettime(CLOCK_REALTIME, &limit);
        limit.tv_sec += 30;
        unsigned long total = 0, acquired = 0, timeouts = 0, busy = 0;
        for (int i = 0; i < WORKERS; i++) {
                if (pthread_timedjoin_np(workers[i].thread, NULL, &limit) != 0) {
                        fprintf(stderr, "FAIL: worker %d did not finish: deadlock or lost wake-up\n", i);
                        return 1;
                }
                for (int m = 0; m < MUTEXES; m++)
                        acquired += workers[i].acquired[m];
                timeouts += workers[i].timeouts;
                busy += workers[i].busy;
        }
        for (int i = 0; i < 2; i++)
                if (pthread_timedjoin_np(pp[i], NULL, &limit) != 0) {
                        fprintf(stderr, "FAIL: ping-pong thread %d stuck: lost wake-up\n", i);
                        return 1;
                }
        for (int m = 0; m < MUTEXES; m++)
                total += shared[m].count;
        if (total != acquired) {
                fprintf(stderr, "FAIL: %lu increments counted, %lu acquisitions\n", total, acquired);
                failures++;
        }
        size_t left = override_registry_size();
        if (override_registry_pushes() == 0) {
                fprintf(stderr, "FAIL: no waiter ever lent its class: the test tested nothing\n");
                failures++;
        }
        if (left != 0) {
                fprintf(stderr, "FAIL: %zu threads still in the override registry\n", left);
                failures++;
        }
        printf("%d s, %d workers on %d mutexes: %lu acquisitions, %lu timeouts, %lu busy trylocks, "
               "%lu ping-pong rounds, %lu overrides lent, %d failures\n",
               seconds, WORKERS, MUTEXES, acquired, timeouts, busy, rounds, override_registry_pushes(), failures);
        return failures ? 1 : 0;
}
