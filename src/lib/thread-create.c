/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qos_pthread_create(): the class of the attribute object, applied by the
 * new thread to itself before its start routine runs. */
#include <errno.h>
#include <semaphore.h>
#include <unistd.h>

#include "lib/attr-table.h"
#include "core/macro.h"
#include "qos/qos.h"
#include "lib/thread-apply.h"

/* Lives on the creator's stack until the new thread has posted `applied`. */
typedef struct ThreadStart {
        void *(*start_routine)(void *);
        void *arg;
        QClass class;
        int relpri;
        int result;
        sem_t applied;
} ThreadStart;

static void *thread_start(void *userdata) {
        ThreadStart *s = userdata;
        void *(*start_routine)(void *) = s->start_routine;
        void *arg = s->arg;

        /* As the thread itself: its own timer slack is settable too. */
        int r = thread_apply_class(gettid(), true, s->class, s->relpri);
        s->result = r;
        sem_post(&s->applied); /* s is gone after this */
        if (r < 0)
                return NULL;
        return start_routine(arg);
}

static bool attr_joinable(const pthread_attr_t *attr) {
        int state;
        return pthread_attr_getdetachstate(attr, &state) != 0 || state == PTHREAD_CREATE_JOINABLE;
}

int qos_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start_routine)(void *),
                       void *arg) {
        ThreadStart s = { .start_routine = start_routine, .arg = arg };
        pthread_t t;
        int r;

        if (!thread || !start_routine)
                return -EINVAL;
        if (attr)
                attr_table_get(attr, &s.class, &s.relpri);
        if (s.class == QCLASS_UNSPECIFIED)
                return -pthread_create(thread, attr, start_routine, arg);

        if (sem_init(&s.applied, 0, 0) < 0)
                return negative_errno();
        r = pthread_create(&t, attr, thread_start, &s);
        if (r != 0) {
                sem_destroy(&s.applied);
                return -r;
        }
        while (sem_wait(&s.applied) < 0 && errno == EINTR)
                ;
        sem_destroy(&s.applied);
        if (s.result < 0) {
                /* The thread ended without running start_routine; reap it
                 * so that, as with a failed pthread_create(), none exists. */
                if (attr_joinable(attr))
                        pthread_join(t, NULL);
                return s.result;
        }
        *thread = t;
        return s.result;
}
