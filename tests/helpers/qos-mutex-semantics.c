/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* glibc's pthread mutex and condition variable results, printed one per
 * line: run once plainly and once under the preload, the two outputs must
 * be the same (test-preload-lend.sh compares them). Every mutex type,
 * robust and not, PI, process-shared; EDEADLK, EBUSY, EPERM, ETIMEDOUT,
 * EINVAL, EOWNERDEAD, ENOTRECOVERABLE; condition variables with spurious
 * wake-ups, timeouts and broadcast; fork() with locks held. The checking
 * thread is called ui-check and its helper bg-holder, so that under a rule
 * for those names every contended case here is also a lending case.
 * Nothing printed depends on timing. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mutex-holder.h"

static void say(const char *what, int r) {
        printf("%s: %s\n", what, r == 0 ? "0" : strerrorname_np(r));
}

static void init_mutex(pthread_mutex_t *m, int type, int robust, int proto, int pshared) {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, type);
        pthread_mutexattr_setrobust(&a, robust ? PTHREAD_MUTEX_ROBUST : PTHREAD_MUTEX_STALLED);
        pthread_mutexattr_setprotocol(&a, proto);
        pthread_mutexattr_setpshared(&a, pshared ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE);
        if (pthread_mutex_init(m, &a) != 0)
                abort();
        pthread_mutexattr_destroy(&a);
}

/* The caller, as owner. */
static void own_cases(pthread_mutex_t *m, int type, int robust) {
        struct timespec soon = deadline_ms(CLOCK_REALTIME, 50);
        say("lock", pthread_mutex_lock(m));
        say("trylock again", pthread_mutex_trylock(m));
        if (type == PTHREAD_MUTEX_ERRORCHECK || type == PTHREAD_MUTEX_RECURSIVE) {
                /* A normal or adaptive mutex, robust or not, would deadlock
                 * here, in glibc as POSIX says. */
                say("lock again", pthread_mutex_lock(m));
                say("timedlock again", pthread_mutex_timedlock(m, &soon));
        }
        for (int i = 0; i < 4; i++)
                say("unlock", pthread_mutex_unlock(m));
        say("trylock free", pthread_mutex_trylock(m));
        say("unlock", pthread_mutex_unlock(m));
}

/* Another thread (bg-holder) owns it. */
static void contended_cases(Holder *h, pthread_mutex_t *m, int type, int robust) {
        struct timespec t;

        say("holder lock", holder_do(h, HOLD_LOCK, m));
        say("trylock held", pthread_mutex_trylock(m));
        t = deadline_ms(CLOCK_REALTIME, 50);
        say("timedlock held", pthread_mutex_timedlock(m, &t));
        t = deadline_ms(CLOCK_MONOTONIC, 50);
        say("clocklock monotonic held", pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &t));
        say("clocklock cputime held", pthread_mutex_clocklock(m, CLOCK_PROCESS_CPUTIME_ID, &t));
        t = (struct timespec) { .tv_sec = 1, .tv_nsec = 1000000000 };
        say("timedlock bad time held", pthread_mutex_timedlock(m, &t));
        if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_ADAPTIVE_NP)
                /* A normal mutex's unlock checks no owner: it would release. */
                say("unlock not owner", pthread_mutex_unlock(m));
        /* Wait while the holder lets go a moment later. */
        holder_later(h, HOLD_UNLOCK, m, 100);
        say("lock while held", pthread_mutex_lock(m));
        say("holder unlocked", holder_result(h));
        say("unlock", pthread_mutex_unlock(m));
        holder_later(h, HOLD_LOCK, m, 0);
        say("holder lock", holder_result(h));
        holder_later(h, HOLD_UNLOCK, m, 100);
        t = deadline_ms(CLOCK_REALTIME, 10000);
        say("timedlock while held", pthread_mutex_timedlock(m, &t));
        say("holder unlocked", holder_result(h));
        say("unlock", pthread_mutex_unlock(m));
        (void) robust;
}

static void robust_cases(pthread_mutex_t *m) {
        Holder h;
        struct timespec t;

        holder_start(&h, "bg-holder");
        say("holder lock, then exits", holder_do(&h, HOLD_LOCK, m));
        holder_stop(&h);
        say("lock dead owner", pthread_mutex_lock(m));
        say("unlock inconsistent", pthread_mutex_unlock(m));
        say("lock unrecoverable", pthread_mutex_lock(m));
        say("trylock unrecoverable", pthread_mutex_trylock(m));
        pthread_mutex_destroy(m);

        init_mutex(m, PTHREAD_MUTEX_ERRORCHECK, 1, PTHREAD_PRIO_NONE, 0);
        holder_start(&h, "bg-holder");
        say("holder lock, then exits", holder_do(&h, HOLD_LOCK, m));
        holder_stop(&h);
        say("trylock dead owner", pthread_mutex_trylock(m));
        say("consistent", pthread_mutex_consistent(m));
        say("unlock", pthread_mutex_unlock(m));
        t = deadline_ms(CLOCK_REALTIME, 50);
        say("timedlock recovered", pthread_mutex_timedlock(m, &t));
        say("unlock", pthread_mutex_unlock(m));

        /* The owner dies while we wait on it (and lend to it). */
        holder_start(&h, "bg-holder");
        say("holder lock", holder_do(&h, HOLD_LOCK, m));
        holder_later(&h, HOLD_EXIT, m, 100);
        say("lock, owner dies meanwhile", pthread_mutex_lock(m));
        say("consistent", pthread_mutex_consistent(m));
        say("unlock", pthread_mutex_unlock(m));
        holder_stop(&h);
}

static const struct {
        const char *name;
        int type, robust, proto, pshared;
} kinds[] = {
        { "normal", PTHREAD_MUTEX_NORMAL, 0, PTHREAD_PRIO_NONE, 0 },
        { "recursive", PTHREAD_MUTEX_RECURSIVE, 0, PTHREAD_PRIO_NONE, 0 },
        { "errorcheck", PTHREAD_MUTEX_ERRORCHECK, 0, PTHREAD_PRIO_NONE, 0 },
        { "adaptive", PTHREAD_MUTEX_ADAPTIVE_NP, 0, PTHREAD_PRIO_NONE, 0 },
        { "robust normal", PTHREAD_MUTEX_NORMAL, 1, PTHREAD_PRIO_NONE, 0 },
        { "robust recursive", PTHREAD_MUTEX_RECURSIVE, 1, PTHREAD_PRIO_NONE, 0 },
        { "robust errorcheck", PTHREAD_MUTEX_ERRORCHECK, 1, PTHREAD_PRIO_NONE, 0 },
        { "pi errorcheck", PTHREAD_MUTEX_ERRORCHECK, 0, PTHREAD_PRIO_INHERIT, 0 },
        { "pi robust normal", PTHREAD_MUTEX_NORMAL, 1, PTHREAD_PRIO_INHERIT, 0 },
        { "pshared errorcheck", PTHREAD_MUTEX_ERRORCHECK, 0, PTHREAD_PRIO_NONE, 1 },
        { "pshared recursive", PTHREAD_MUTEX_RECURSIVE, 0, PTHREAD_PRIO_NONE, 1 },
};

static void mutex_cases(void) {
        Holder h;
        holder_start(&h, "bg-holder");
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
                pthread_mutex_t m;
                printf("== %s\n", kinds[i].name);
                init_mutex(&m, kinds[i].type, kinds[i].robust, kinds[i].proto, kinds[i].pshared);
                own_cases(&m, kinds[i].type, kinds[i].robust);
                contended_cases(&h, &m, kinds[i].type, kinds[i].robust);
                say("destroy", pthread_mutex_destroy(&m));
        }
        holder_stop(&h);

        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        printf("== static initializer\n");
        own_cases(&m, PTHREAD_MUTEX_NORMAL, 0);
        printf("== robust, owner gone\n");
        init_mutex(&m, PTHREAD_MUTEX_NORMAL, 1, PTHREAD_PRIO_NONE, 0);
        robust_cases(&m);
}

typedef struct Waiters {
        pthread_mutex_t m;
        pthread_cond_t c;
        int pred, waits, returns, errors, unlock_result;
        unsigned hold_ms; /* how long the signaller keeps the mutex after the wake */
} Waiters;

/* ui-waiter: wait until pred, counting every return of pthread_cond_wait;
 * then unlock, whose result (errorcheck: 0 only if held) is kept. */
static void *waiter(void *userdata) {
        Waiters *w = userdata;
        prctl(PR_SET_NAME, "ui-waiter");
        pthread_mutex_lock(&w->m);
        while (!w->pred) {
                w->waits++;
                if (pthread_cond_wait(&w->c, &w->m) != 0)
                        w->errors++;
                w->returns++;
        }
        /* Outside the mutex, and several waiters store it (broadcast):
         * atomically, or ThreadSanitizer rightly calls it a race. */
        __atomic_store_n(&w->unlock_result, pthread_mutex_unlock(&w->m), __ATOMIC_RELAXED);
        return NULL;
}

/* Lock w->m once at least n waits have begun (each waiter has released the
 * mutex inside pthread_cond_wait when we get it). */
static void lock_when_waits(Waiters *w, int n) {
        for (;;) {
                pthread_mutex_lock(&w->m);
                if (w->waits >= n)
                        return;
                pthread_mutex_unlock(&w->m);
                sleep_ms(1);
        }
}

/* Three spurious wake-ups (signal, predicate unchanged), then the real
 * one, each after the waiter waits again: four returns, held each time. */
static void spurious_case(const char *name, int type, int robust) {
        Waiters w = { .c = PTHREAD_COND_INITIALIZER };
        pthread_t t;

        printf("== cond %s\n", name);
        init_mutex(&w.m, type, robust, PTHREAD_PRIO_NONE, 0);
        pthread_create(&t, NULL, waiter, &w);
        for (int k = 1; k <= 4; k++) {
                lock_when_waits(&w, k);
                if (k == 4)
                        w.pred = 1;
                say("signal", pthread_cond_signal(&w.c));
                /* The last wake finds the mutex held for a while. */
                if (k == 4)
                        sleep_ms(50);
                pthread_mutex_unlock(&w.m);
        }
        pthread_join(t, NULL);
        printf("waits %d returns %d errors %d\n", w.waits, w.returns, w.errors);
        say("waiter unlock", w.unlock_result);
        pthread_mutex_destroy(&w.m);
}

static void broadcast_case(void) {
        Waiters w = { .c = PTHREAD_COND_INITIALIZER };
        pthread_t t[3];

        printf("== cond broadcast\n");
        init_mutex(&w.m, PTHREAD_MUTEX_ERRORCHECK, 0, PTHREAD_PRIO_NONE, 0);
        for (int i = 0; i < 3; i++)
                pthread_create(&t[i], NULL, waiter, &w);
        lock_when_waits(&w, 3);
        w.pred = 1;
        say("broadcast", pthread_cond_broadcast(&w.c));
        pthread_mutex_unlock(&w.m);
        for (int i = 0; i < 3; i++)
                pthread_join(t[i], NULL);
        printf("waits %d returns %d errors %d\n", w.waits, w.returns, w.errors);
        say("last waiter unlock", w.unlock_result);
}

static void timeout_cases(void) {
        pthread_cond_t c = PTHREAD_COND_INITIALIZER;
        pthread_mutex_t m;
        struct timespec t;
        Holder h;

        printf("== cond timeouts\n");
        init_mutex(&m, PTHREAD_MUTEX_ERRORCHECK, 0, PTHREAD_PRIO_NONE, 0);
        holder_start(&h, "bg-holder");
        say("lock", pthread_mutex_lock(&m));
        t = deadline_ms(CLOCK_REALTIME, 50);
        say("timedwait", pthread_cond_timedwait(&c, &m, &t));
        say("holder trylock", holder_do(&h, HOLD_TRYLOCK, &m));
        t = deadline_ms(CLOCK_MONOTONIC, 50);
        say("clockwait monotonic", pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &t));
        say("clockwait cputime", pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &t));
        t = (struct timespec) { .tv_sec = 1, .tv_nsec = 1000000000 };
        say("timedwait bad time", pthread_cond_timedwait(&c, &m, &t));
        say("unlock", pthread_mutex_unlock(&m));
        /* The mutex is contended when the timeout comes: the wait returns
         * only once the holder lets go. */
        say("lock", pthread_mutex_lock(&m));
        holder_later(&h, HOLD_LOCK_FOR, &m, 200);
        t = deadline_ms(CLOCK_REALTIME, 50);
        sleep_ms(20);
        say("timedwait, then contended", pthread_cond_timedwait(&c, &m, &t));
        say("unlock", pthread_mutex_unlock(&m));
        say("holder lock", holder_result(&h));
        holder_stop(&h);
        say("destroy", pthread_mutex_destroy(&m));
}

static void cond_cases(void) {
        spurious_case("errorcheck", PTHREAD_MUTEX_ERRORCHECK, 0);
        spurious_case("normal", PTHREAD_MUTEX_NORMAL, 0);
        spurious_case("recursive", PTHREAD_MUTEX_RECURSIVE, 0);
        spurious_case("robust errorcheck", PTHREAD_MUTEX_ERRORCHECK, 1);
        broadcast_case();
        timeout_cases();
}

/* fork() while this thread holds an errorcheck and a recursive mutex and
 * bg-holder holds a normal one: in the child the owners' TIDs are nobody's. */
static void fork_cases(void) {
        pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER, check, rec;
        Holder h;

        printf("== fork\n");
        init_mutex(&check, PTHREAD_MUTEX_ERRORCHECK, 0, PTHREAD_PRIO_NONE, 0);
        init_mutex(&rec, PTHREAD_MUTEX_RECURSIVE, 0, PTHREAD_PRIO_NONE, 0);
        holder_start(&h, "bg-holder");
        say("holder lock", holder_do(&h, HOLD_LOCK, &normal));
        say("lock errorcheck", pthread_mutex_lock(&check));
        say("lock recursive", pthread_mutex_lock(&rec));
        say("lock recursive", pthread_mutex_lock(&rec));
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
                struct timespec t = deadline_ms(CLOCK_REALTIME, 50);
                say("child trylock normal", pthread_mutex_trylock(&normal));
                say("child timedlock normal", pthread_mutex_timedlock(&normal, &t));
                say("child unlock errorcheck", pthread_mutex_unlock(&check));
                say("child trylock errorcheck", pthread_mutex_trylock(&check));
                say("child unlock recursive", pthread_mutex_unlock(&rec));
                pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
                say("child lock fresh", pthread_mutex_lock(&fresh));
                say("child unlock fresh", pthread_mutex_unlock(&fresh));
                fflush(stdout);
                _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        say("child exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        say("unlock errorcheck", pthread_mutex_unlock(&check));
        say("unlock recursive", pthread_mutex_unlock(&rec));
        say("unlock recursive", pthread_mutex_unlock(&rec));
        say("holder unlock", holder_do(&h, HOLD_UNLOCK, &normal));
        holder_stop(&h);
}

int main(int argc, char **argv) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        prctl(PR_SET_NAME, "ui-check");
        if (argc < 2 || strcmp(argv[1], "mutex") == 0)
                mutex_cases();
        if (argc < 2 || strcmp(argv[1], "cond") == 0)
                cond_cases();
        if (argc < 2 || strcmp(argv[1], "fork") == 0)
                fork_cases();
        return 0;
}
