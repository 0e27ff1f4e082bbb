/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qos-plain-mutex's chain and second-waiter cases (plain-mutex-chain.h). */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "mutex-holder.h"
#include "plain-mutex-chain.h"

#define SETTINGS 64

static void wait_flag(const int *flag) {
        while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
                sleep_ms(1);
}

static void set_flag(int *flag) {
        __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

/* Name the calling thread and wait (3 s at most) for the class the rules
 * give that name: the preload applies it at once, qosd a moment later. */
static void take_name(const char *name) {
        char start[SETTINGS], now[SETTINGS];
        thread_settings(start, sizeof start);
        prctl(PR_SET_NAME, name);
        (void) thread_settings_wait_change(start, now, sizeof now, 3000);
}

/* Until glibc marked m as waited on (a thread sleeps, or is about to). */
static void wait_waited_on(pthread_mutex_t *m) {
        for (int i = 0; i < 3000 && __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) < 2; i++)
                sleep_ms(1);
}

typedef struct Chain {
        pthread_mutex_t m1, m2;
        int middle_holds, waiter_waiting;
        char middle_lent[SETTINGS], middle_after[SETTINGS];
        int waiter_r;
} Chain;

static void *chain_middle(void *userdata) {
        Chain *c = userdata;
        take_name("bg-middle");
        pthread_mutex_lock(&c->m1);
        set_flag(&c->middle_holds);
        /* Both background: nothing is lent here, but the wait is recorded. */
        pthread_mutex_lock(&c->m2);
        thread_settings(c->middle_lent, sizeof c->middle_lent);
        pthread_mutex_unlock(&c->m2);
        pthread_mutex_unlock(&c->m1);
        thread_settings(c->middle_after, sizeof c->middle_after);
        return NULL;
}

static void *chain_waiter(void *userdata) {
        Chain *c = userdata;
        take_name("ui-waiter");
        set_flag(&c->waiter_waiting);
        c->waiter_r = pthread_mutex_lock(&c->m1);
        pthread_mutex_unlock(&c->m1);
        return NULL;
}

int lend_chain(unsigned poll_ms) {
        Chain c = { .m1 = PTHREAD_MUTEX_INITIALIZER, .m2 = PTHREAD_MUTEX_INITIALIZER };
        char base[SETTINGS], lent[SETTINGS], after[SETTINGS];
        pthread_t middle, waiter;

        prctl(PR_SET_NAME, "bg-tail");
        thread_settings(base, sizeof base);
        pthread_mutex_lock(&c.m2);
        pthread_create(&middle, NULL, chain_middle, &c);
        wait_flag(&c.middle_holds);
        wait_waited_on(&c.m2);
        pthread_create(&waiter, NULL, chain_waiter, &c);
        wait_flag(&c.waiter_waiting);
        (void) thread_settings_wait_change(base, lent, sizeof lent, poll_ms);
        pthread_mutex_unlock(&c.m2);
        thread_settings(after, sizeof after);
        pthread_join(middle, NULL);
        pthread_join(waiter, NULL);
        printf("tail-base %s\ntail-lent %s\ntail-after %s\nmiddle-lent %s\nmiddle-after %s\nwaiter lock %d\n",
               base, lent, after, c.middle_lent, c.middle_after, c.waiter_r);
        return 0;
}

typedef struct Second {
        pthread_mutex_t m;
        unsigned give_up_ms;
        pid_t holder;
        char base[SETTINGS];
        int first_waiting, second_waiting, first_done;
        int first_r, second_r;
} Second;

static void *second_first(void *userdata) {
        Second *s = userdata;
        take_name("ui-first");
        struct timespec until = deadline_ms(CLOCK_REALTIME, s->give_up_ms);
        set_flag(&s->first_waiting);
        s->first_r = pthread_mutex_timedlock(&s->m, &until);
        if (s->first_r == 0)
                pthread_mutex_unlock(&s->m);
        set_flag(&s->first_done);
        return NULL;
}

static void *second_second(void *userdata) {
        Second *s = userdata;
        char now[SETTINGS];
        take_name("ui-second");
        /* At the first sign of the first's loan, which its lender may not
         * have heard back about yet. */
        do
                thread_settings_of(s->holder, now, sizeof now);
        while (strcmp(now, s->base) == 0 && (sched_yield(), true));
        set_flag(&s->second_waiting);
        s->second_r = pthread_mutex_lock(&s->m);
        pthread_mutex_unlock(&s->m);
        return NULL;
}

int lend_second(unsigned poll_ms, unsigned give_up_ms) {
        Second s = { .m = PTHREAD_MUTEX_INITIALIZER, .give_up_ms = give_up_ms };
        char base[SETTINGS], lent[SETTINGS], still[SETTINGS], after[SETTINGS];
        pthread_t first, second;

        prctl(PR_SET_NAME, "bg-holder");
        thread_settings(base, sizeof base);
        s.holder = gettid();
        memcpy(s.base, base, sizeof s.base);
        pthread_mutex_lock(&s.m);
        pthread_create(&first, NULL, second_first, &s);
        pthread_create(&second, NULL, second_second, &s);
        wait_flag(&s.first_waiting);
        (void) thread_settings_wait_change(base, lent, sizeof lent, poll_ms);
        wait_flag(&s.second_waiting);
        /* The first waiter gives up; its loan ends, the second's stands. */
        wait_flag(&s.first_done);
        sleep_ms(50);
        thread_settings(still, sizeof still);
        pthread_mutex_unlock(&s.m);
        /* At once, or a round trip later when the second's loan was not
         * answered yet at the unlock (its lender ends it then): on a busy
         * machine that answer can take longer than the 50 ms above. */
        (void) thread_settings_wait_change(still, after, sizeof after, poll_ms);
        pthread_join(first, NULL);
        pthread_join(second, NULL);
        printf("base %s\nlent %s\nstill %s\nafter %s\nfirst lock %s\nsecond lock %d\n", base, lent, still, after,
               s.first_r == ETIMEDOUT ? "ETIMEDOUT" : "not ETIMEDOUT", s.second_r);
        return 0;
}

typedef struct Signal {
        pthread_mutex_t m;
        pthread_cond_t c;
        int waiting, ready, waiter_r;
} Signal;

static void *signal_waiter(void *userdata) {
        Signal *s = userdata;
        take_name("ui-waiter");
        pthread_mutex_lock(&s->m);
        s->waiting = 1;
        while (!s->ready)
                pthread_cond_wait(&s->c, &s->m);
        s->waiter_r = pthread_mutex_unlock(&s->m);
        return NULL;
}

int lend_signal(bool broadcast) {
        Signal s = { .m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER };
        char base[SETTINGS], lent[SETTINGS], after[SETTINGS];
        pthread_t waiter;

        prctl(PR_SET_NAME, "bg-signaller");
        thread_settings(base, sizeof base);
        pthread_create(&waiter, NULL, signal_waiter, &s);
        /* Until the waiter sleeps in pthread_cond_wait(): it set waiting
         * under the mutex, which it gives up only there. */
        for (;;) {
                pthread_mutex_lock(&s.m);
                if (s.waiting)
                        break;
                pthread_mutex_unlock(&s.m);
                sleep_ms(1);
        }
        s.ready = 1;
        if (broadcast)
                pthread_cond_broadcast(&s.c);
        else
                pthread_cond_signal(&s.c);
        thread_settings(lent, sizeof lent);
        pthread_mutex_unlock(&s.m);
        thread_settings(after, sizeof after);
        pthread_join(waiter, NULL);
        printf("base %s\nlent %s\nafter %s\nwaiter unlock %d\n", base, lent, after, s.waiter_r);
        return 0;
}
