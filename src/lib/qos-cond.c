/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A sequence-counter condition variable: a waiter reads the counter while
 * it holds the mutex and sleeps only if no signal has bumped it since. */
#include "lib/futex.h"
#include "qos/qos.h"

int qos_cond_init(qos_cond_t *c) {
        *c = (qos_cond_t) QOS_COND_INITIALIZER;
        return 0;
}

int qos_cond_destroy(qos_cond_t *c) {
        return 0;
}

int qos_cond_timedwait(qos_cond_t *c, qos_mutex_t *m, const struct timespec *abstime) {
        int r = timespec_check(abstime);
        if (r < 0)
                return r;
        /* Relaxed is enough: this load is ordered before our unlock
         * (release), which a signaller that changes the predicate under
         * the mutex acquires, so its increment comes later in the
         * counter's modification order and the kernel's compare in
         * futex_wait sees it, or its wake finds us queued. */
        unsigned seq = __atomic_load_n(&c->__seq, __ATOMIC_RELAXED);
        qos_mutex_unlock(m);
        do
                r = futex_wait(&c->__seq, seq, abstime);
        while (r == -EINTR);
        qos_mutex_lock(m);
        return r == -ETIMEDOUT ? r : 0;
}

int qos_cond_wait(qos_cond_t *c, qos_mutex_t *m) {
        return qos_cond_timedwait(c, m, NULL);
}

static void bump_and_wake(qos_cond_t *c, int n) {
        __atomic_fetch_add(&c->__seq, 1, __ATOMIC_RELAXED);
        futex_wake(&c->__seq, n);
}

int qos_cond_signal(qos_cond_t *c) {
        bump_and_wake(c, 1);
        return 0;
}

/* Every waiter wakes and then competes for the mutex; requeueing them onto
 * the mutex word (FUTEX_CMP_REQUEUE) would save wake-ups, but each waiter
 * has to lend to the new owner anyway, which only it can do. */
int qos_cond_broadcast(qos_cond_t *c) {
        bump_and_wake(c, INT_MAX);
        return 0;
}
