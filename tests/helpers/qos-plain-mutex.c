/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An unmodified pthread program for test-preload-lend.sh: it never calls
 * libqos, it only names its threads (bg-holder, ui-waiter, ...), which the
 * test's rules give classes.
 *
 *   lend TYPE [cond|unlock [MS [HOLD_MS]]]
 *                     bg-holder takes a mutex of TYPE (normal, recursive,
 *                     errorcheck, robust, pi, pshared), ui-waiter waits
 *                     on it; bg-holder prints its own settings before,
 *                     while waited on (polling until they change, MS
 *                     milliseconds at most, 3000 unless given) and right
 *                     after its unlock (or, with cond, after a
 *                     pthread_cond_timedwait() that released it); with
 *                     HOLD_MS it holds that much longer once lent, so
 *                     that a loan through qosd is recorded before the
 *                     release (a release between qosd's change and its
 *                     answer leaves the loan to its lender to end,
 *                     and "after" is then read once it has).
 *   chain [MS], second [MS], signal [broadcast]
 *                     a loan along a chain of two holders, a second
 *                     waiter's loan that outlives the first's, a
 *                     condition variable's waiter lending to the
 *                     signaller that holds its mutex (plain-mutex-chain.h).
 *   uncontended N     N lock/unlock pairs on each type, between two
 *                     write()s of "begin" and "end" (strace counts the
 *                     system calls between).
 *   stress N          threads of both classes on shared mutexes of every
 *                     type and a condition variable, N rounds each;
 *                     prints the counters, which must add up. */
#include <errno.h>
#include <linux/sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mutex-holder.h"
#include "plain-mutex-chain.h"

static void init_type(pthread_mutex_t *m, const char *type) {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        if (strcmp(type, "recursive") == 0)
                pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
        else if (strcmp(type, "errorcheck") == 0)
                pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
        else if (strcmp(type, "robust") == 0)
                pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
        else if (strcmp(type, "pi") == 0)
                pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
        else if (strcmp(type, "pshared") == 0)
                pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
        else if (strcmp(type, "normal") != 0) {
                fprintf(stderr, "unknown type %s\n", type);
                exit(2);
        }
        if (pthread_mutex_init(m, &a) != 0)
                abort();
        pthread_mutexattr_destroy(&a);
}

typedef struct Lend {
        pthread_mutex_t m;
        pthread_cond_t c;
        int waiting; /* ui-waiter is about to lock (pipe-free: read under no lock, a hint) */
        int done;
        bool via_cond;
} Lend;

static void *lend_waiter(void *userdata) {
        Lend *l = userdata;
        char start[64], now[64];
        thread_settings(start, sizeof start);
        prctl(PR_SET_NAME, "ui-waiter");
        /* Lend only with the class the rule gives: applied by the preload
         * at once with privilege, by qosd a moment later without. */
        (void) thread_settings_wait_change(start, now, sizeof now, 3000);
        __atomic_store_n(&l->waiting, 1, __ATOMIC_RELEASE);
        int r = pthread_mutex_lock(&l->m);
        l->done = 1;
        if (l->via_cond)
                pthread_cond_signal(&l->c);
        pthread_mutex_unlock(&l->m);
        printf("waiter lock %d\n", r);
        return NULL;
}

static int lend(const char *type, bool via_cond, unsigned poll_ms, unsigned hold_ms) {
        Lend l = { .c = PTHREAD_COND_INITIALIZER, .via_cond = via_cond };
        char base[64], now[64], after[64];
        pthread_t t;

        init_type(&l.m, type);
        prctl(PR_SET_NAME, "bg-holder");
        thread_settings(base, sizeof base);
        pthread_mutex_lock(&l.m);
        pthread_create(&t, NULL, lend_waiter, &l);
        while (!__atomic_load_n(&l.waiting, __ATOMIC_ACQUIRE))
                sleep_ms(1);
        /* Polled while holding: the loan shows as a change of our own
         * settings (no class of ours matches them otherwise). */
        (void) thread_settings_wait_change(base, now, sizeof now, poll_ms);
        if (hold_ms)
                sleep_ms(hold_ms);
        if (via_cond) {
                struct timespec t1 = deadline_ms(CLOCK_REALTIME, 10000);
                while (!l.done)
                        pthread_cond_timedwait(&l.c, &l.m, &t1);
                thread_settings(after, sizeof after);
                pthread_mutex_unlock(&l.m);
        } else {
                pthread_mutex_unlock(&l.m);
                thread_settings(after, sizeof after);
        }
        /* Through qosd (hold_ms given), the loan ends at the unlock or, when
         * qosd's answer had not reached the lender yet, a round trip later
         * by the lender: on a busy machine that answer can take longer than
         * hold_ms. */
        if (hold_ms && strcmp(after, now) == 0 && strcmp(now, base) != 0)
                (void) thread_settings_wait_change(now, after, sizeof after, 3000);
        pthread_join(t, NULL);
        printf("base %s\nlent %s\nafter %s\n", base, now, after);
        return 0;
}

static int uncontended(long n) {
        static const char *const types[] = { "normal", "recursive", "errorcheck", "robust" };
        pthread_mutex_t m[4], fixed = PTHREAD_MUTEX_INITIALIZER;
        char before[64], after[64];

        for (int i = 0; i < 4; i++)
                init_type(&m[i], types[i]);
        thread_settings(before, sizeof before);
        if (write(STDOUT_FILENO, "begin\n", 6) != 6)
                return 1;
        for (long k = 0; k < n; k++) {
                for (int i = 0; i < 4; i++) {
                        pthread_mutex_lock(&m[i]);
                        pthread_mutex_unlock(&m[i]);
                        if (pthread_mutex_trylock(&m[i]) == 0)
                                pthread_mutex_unlock(&m[i]);
                }
                pthread_mutex_lock(&fixed);
                pthread_mutex_unlock(&fixed);
        }
        if (write(STDOUT_FILENO, "end\n", 4) != 4)
                return 1;
        thread_settings(after, sizeof after);
        printf("settings %s\n", strcmp(before, after) == 0 ? "unchanged" : "changed");
        return 0;
}

/* Stress: every thread adds to counters under the mutexes, with lock,
 * timedlock, trylock and a condition variable; the sums must match. */
#define STRESS_THREADS 6

typedef struct Stress {
        pthread_mutex_t m[4];
        pthread_cond_t c;
        long count[4], signals, rounds;
} Stress;

typedef struct StressArg {
        Stress *s;
        int id;
} StressArg;

static void *stress_thread(void *userdata) {
        StressArg *a = userdata;
        Stress *s = a->s;
        char name[16];

        snprintf(name, sizeof name, "%s-stress%d", a->id % 2 ? "ui" : "bg", a->id);
        prctl(PR_SET_NAME, name);
        for (long k = 0; k < s->rounds; k++) {
                int i = (int) ((k + a->id) % 4);
                struct timespec t = deadline_ms(CLOCK_REALTIME, 1000);
                int r;
                switch (k % 3) {
                case 0:
                        r = pthread_mutex_lock(&s->m[i]);
                        break;
                case 1:
                        while ((r = pthread_mutex_timedlock(&s->m[i], &t)) == ETIMEDOUT)
                                t = deadline_ms(CLOCK_REALTIME, 1000);
                        break;
                default:
                        while ((r = pthread_mutex_trylock(&s->m[i])) == EBUSY)
                                sched_yield();
                }
                if (r != 0)
                        abort();
                s->count[i]++;
                /* Background threads hold a while, now and then: the
                 * others wait on them, and lend. */
                if (a->id % 2 == 0 && k % 4 == 0)
                        sleep_ms(1);
                if (i == 0) {
                        /* A condition variable on the normal mutex: wait
                         * briefly for anyone's signal, counted once. */
                        struct timespec w = deadline_ms(CLOCK_REALTIME, 1);
                        pthread_cond_signal(&s->c);
                        s->signals++;
                        (void) pthread_cond_timedwait(&s->c, &s->m[0], &w);
                }
                if (pthread_mutex_unlock(&s->m[i]) != 0)
                        abort();
        }
        return NULL;
}

static int stress(long rounds) {
        static const char *const types[] = { "normal", "recursive", "errorcheck", "robust" };
        Stress s = { .c = PTHREAD_COND_INITIALIZER, .rounds = rounds };
        pthread_t t[STRESS_THREADS];
        StressArg a[STRESS_THREADS];
        long total = 0;

        for (int i = 0; i < 4; i++)
                init_type(&s.m[i], types[i]);
        for (int i = 0; i < STRESS_THREADS; i++) {
                a[i] = (StressArg) { .s = &s, .id = i };
                pthread_create(&t[i], NULL, stress_thread, &a[i]);
        }
        for (int i = 0; i < STRESS_THREADS; i++)
                pthread_join(t[i], NULL);
        for (int i = 0; i < 4; i++)
                total += s.count[i];
        printf("stress total %ld expected %ld\n", total, rounds * STRESS_THREADS);
        return total == rounds * STRESS_THREADS ? 0 : 1;
}

int main(int argc, char **argv) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (argc >= 3 && strcmp(argv[1], "lend") == 0)
                return lend(argv[2], argc >= 4 && strcmp(argv[3], "cond") == 0,
                            argc >= 5 ? (unsigned) atoi(argv[4]) : 3000, argc >= 6 ? (unsigned) atoi(argv[5]) : 0);
        if (argc >= 2 && strcmp(argv[1], "chain") == 0)
                return lend_chain(argc >= 3 ? (unsigned) atoi(argv[2]) : 3000);
        if (argc >= 2 && strcmp(argv[1], "signal") == 0)
                return lend_signal(argc >= 3 && strcmp(argv[2], "broadcast") == 0);
        if (argc >= 2 && strcmp(argv[1], "second") == 0)
                return lend_second(argc >= 3 ? (unsigned) atoi(argv[2]) : 3000, 500);
        if (argc >= 3 && strcmp(argv[1], "uncontended") == 0)
                return uncontended(atol(argv[2]));
        if (argc >= 3 && strcmp(argv[1], "stress") == 0)
                return stress(atol(argv[2]));
        fprintf(stderr, "usage: %s lend TYPE [cond|unlock [MS [HOLD_MS]]] | chain [MS] | second [MS] | signal [broadcast] | uncontended N | stress N\n", argv[0]);
        return 2;
}
