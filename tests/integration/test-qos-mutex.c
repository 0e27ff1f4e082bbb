/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Overrides and qos_mutex_t on the real kernel, as root (overrides are
 * applied directly): nesting and exact restore of a hand-made base, a
 * thread that exits while raised, a waiter that times out, a loan that
 * leaves the cgroup alone, the chain bound, and the lock calls' error
 * cases. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/lib-lock.h"
#include "lib/override.h"
#include "qos/qos.h"
#include "core/sched-syscall.h"
#include "core/task-attr.h"

/* A thread that does one thing (fn), then waits for `release` and, if
 * asked, does a second thing (after). */
typedef struct Puppet {
        pthread_t thread;
        pid_t tid;
        sem_t started, release;
        void (*fn)(struct Puppet *p);
        void (*after)(struct Puppet *p);
        qos_mutex_t *hold, *want;
        TaskAttr base;
        int result;
} Puppet;

static void *puppet_main(void *arg) {
        Puppet *p = arg;
        p->tid = gettid();
        if (p->fn)
                p->fn(p);
        sem_post(&p->started);
        sem_wait(&p->release);
        if (p->after)
                p->after(p);
        return NULL;
}

static void puppet_start(Puppet *p) {
        sem_init(&p->started, 0, 0);
        sem_init(&p->release, 0, 0);
        assert_int_equal(pthread_create(&p->thread, NULL, puppet_main, p), 0);
        sem_wait(&p->started);
}

static void puppet_finish(Puppet *p) {
        sem_post(&p->release);
        assert_int_equal(pthread_join(p->thread, NULL), 0);
}

static qos_class_t class_of(pid_t tid) {
        qos_class_t c = QOS_CLASS_UNSPECIFIED;
        assert_int_equal(qos_thread_get_class(tid, &c, NULL), 0);
        return c;
}

/* cmocka's assertions may only fail on the test's own thread; the other
 * threads abort, which fails the test as loudly. */
#define CHECK(expr)                                                                          \
        do {                                                                                 \
                if (!(expr)) {                                                               \
                        fprintf(stderr, "%s:%d: thread %d: %s\n", __FILE__, __LINE__, gettid(), \
                                #expr);                                                      \
                        abort();                                                             \
                }                                                                            \
        } while (0)

static bool attr_equal(const TaskAttr *a, const TaskAttr *b) {
        return a->policy == b->policy && a->nice == b->nice && a->slice_ns == b->slice_ns &&
               a->reset_on_fork == b->reset_on_fork && a->ioprio == b->ioprio &&
               a->timer_slack_ns == b->timer_slack_ns;
}

/* True once tid sleeps on a qos_mutex_t: registered as waiting (which
 * happens after it lent) and in futex(2). */
static bool registered_waiting(pid_t tid) {
        lib_lock(LIB_LOCK_OVERRIDE);
        bool r = override_waiting_on_locked(tid) != NULL;
        lib_unlock(LIB_LOCK_OVERRIDE);
        return r;
}

static void wait_until_blocked(pid_t tid) {
        char path[64], buf[64];
        snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
        for (int i = 0; i < 10000; i++) {
                FILE *f = fopen(path, "re");
                assert_non_null(f);
                bool in_futex = fgets(buf, sizeof(buf), f) && atoi(buf) == SYS_futex;
                fclose(f);
                if (in_futex && registered_waiting(tid))
                        return;
                usleep(1000);
        }
        fail_msg("thread %d never blocked", tid);
}

static void set_class(pid_t tid, qos_class_t c) {
        assert_int_equal(qos_thread_set_class(tid, c, 0), 0);
}

static void test_nesting_restores_a_hand_made_base(void **state) {
        Puppet t = { 0 };
        qos_override_t *ui, *ut, *in;
        TaskAttr base, now;

        puppet_start(&t);
        /* A base no class has: nice 7 with a 3 ms slice. */
        struct qos_sched_attr sa = { .size = sizeof(sa), .sched_nice = 7, .sched_runtime = 3000000 };
        assert_int_equal(sys_sched_setattr(t.tid, &sa), 0);
        assert_int_equal(task_attr_read(t.tid, &base), 0);
        assert_int_equal(class_of(t.tid), QOS_CLASS_UNSPECIFIED);

        assert_int_equal(qos_override_begin(t.tid, QOS_CLASS_UTILITY, &ut), 0);
        assert_int_equal(class_of(t.tid), QOS_CLASS_UTILITY);
        assert_int_equal(qos_override_begin(t.tid, QOS_CLASS_USER_INTERACTIVE, &ui), 0);
        assert_int_equal(class_of(t.tid), QOS_CLASS_USER_INTERACTIVE);
        assert_int_equal(qos_override_begin(t.tid, QOS_CLASS_USER_INITIATED, &in), 0);
        assert_int_equal(class_of(t.tid), QOS_CLASS_USER_INTERACTIVE);

        assert_int_equal(qos_override_end(ui), 0);
        assert_int_equal(class_of(t.tid), QOS_CLASS_USER_INITIATED);
        assert_int_equal(qos_override_end(ut), 0);
        assert_int_equal(class_of(t.tid), QOS_CLASS_USER_INITIATED);
        assert_int_equal(qos_override_end(in), 0);

        assert_int_equal(task_attr_read(t.tid, &now), 0);
        assert_true(attr_equal(&now, &base));
        assert_int_equal(override_registry_size(), 0);
        puppet_finish(&t);
}

/* Lenders that begin and end overrides on one holder all at once: none
 * may see another's change as a refusal (each settle reads back what it
 * applied), and the holder ends at its base. */
#define RACE_LENDERS 4
#define RACE_ROUNDS 300
static pid_t race_holder;

static void *race_lender(void *arg) {
        qos_class_t c = (qos_class_t) (uintptr_t) arg;
        for (int i = 0; i < RACE_ROUNDS; i++) {
                qos_override_t *o;
                int r = qos_override_begin(race_holder, c, &o);
                if (r < 0) {
                        fprintf(stderr, "round %d: begin: %s\n", i, strerror(-r));
                        return (void *) (intptr_t) r;
                }
                r = qos_override_end(o);
                if (r < 0) {
                        fprintf(stderr, "round %d: end: %s\n", i, strerror(-r));
                        return (void *) (intptr_t) r;
                }
        }
        return NULL;
}

static void test_lenders_racing_on_one_holder(void **state) {
        static const qos_class_t classes[RACE_LENDERS] = { QOS_CLASS_USER_INTERACTIVE, QOS_CLASS_USER_INITIATED,
                                                           QOS_CLASS_USER_INTERACTIVE, QOS_CLASS_UTILITY };
        Puppet t = { 0 };
        pthread_t lenders[RACE_LENDERS];
        TaskAttr base, now;

        puppet_start(&t);
        set_class(t.tid, QOS_CLASS_BACKGROUND);
        assert_int_equal(task_attr_read(t.tid, &base), 0);
        race_holder = t.tid;
        for (int i = 0; i < RACE_LENDERS; i++)
                assert_int_equal(pthread_create(&lenders[i], NULL, race_lender, (void *) (uintptr_t) classes[i]), 0);
        int failed = 0;
        for (int i = 0; i < RACE_LENDERS; i++) {
                void *r;
                assert_int_equal(pthread_join(lenders[i], &r), 0);
                failed += r != NULL;
        }
        assert_int_equal(failed, 0);
        assert_int_equal(task_attr_read(t.tid, &now), 0);
        assert_true(attr_equal(&now, &base));
        assert_int_equal(override_registry_size(), 0);
        puppet_finish(&t);
}

static void test_bad_arguments(void **state) {
        qos_override_t *o;
        assert_int_equal(qos_override_begin(gettid(), QOS_CLASS_UNSPECIFIED, &o), -EINVAL);
        assert_int_equal(qos_override_begin(gettid(), QOS_CLASS_UTILITY, NULL), -EINVAL);
        assert_int_equal(qos_override_begin(1, QOS_CLASS_UTILITY, &o), -ESRCH);
        assert_int_equal(qos_override_end(NULL), -EINVAL);
}

static void test_thread_exits_while_raised(void **state) {
        Puppet t = { 0 };
        qos_override_t *o;

        puppet_start(&t);
        set_class(t.tid, QOS_CLASS_BACKGROUND);
        assert_int_equal(qos_override_begin(t.tid, QOS_CLASS_USER_INTERACTIVE, &o), 0);
        assert_int_equal(class_of(t.tid), QOS_CLASS_USER_INTERACTIVE);
        puppet_finish(&t);
        /* pthread_join() returns once the thread cleared its TID, inside
         * the kernel's exit; the task goes a moment later (longer on a busy
         * machine), and until then it can still be set. */
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%d", (int) t.tid);
        for (int i = 0; i < 5000 && access(path, F_OK) == 0; i++)
                usleep(1000);
        assert_int_equal(qos_override_end(o), -ESRCH);
        assert_int_equal(override_registry_size(), 0);
}

static struct timespec deadline_ms(long ms) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += ms / 1000;
        ts.tv_nsec += (ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
        }
        return ts;
}

static void hold_lock(Puppet *p) {
        CHECK(qos_mutex_lock(p->hold) == 0);
}

/* Unlock, then compare what the thread has with its base, while alive. */
static void release_and_check_base(Puppet *p) {
        TaskAttr now;
        CHECK(qos_mutex_unlock(p->hold) == 0);
        CHECK(task_attr_read(gettid(), &now) == 0);
        CHECK(attr_equal(&now, &p->base));
}

static void timedlock_100ms(Puppet *p) {
        struct timespec ts = deadline_ms(100);
        p->result = qos_mutex_timedlock(p->want, &ts);
}

/* The thread's cgroups as the kernel lists them (every hierarchy). */
static void read_cgroups(pid_t tid, char *buf, size_t size) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/task/%d/cgroup", tid);
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        size_t n = fread(buf, 1, size - 1, f);
        buf[n] = 0;
        fclose(f);
        assert_true(n > 0 && n < size - 1);
}

/* owner (class owner_class) holds a mutex; a waiter of waiter_class gives
 * up after 100 ms. Returns the owner's class after that, before unlock.
 * A loan never moves the owner to another cgroup: the move waits for an
 * RCU grace period (about a tick), which made every contended wait
 * slower than no loan at all (docs/inheritance.md). */
static qos_class_t contend(qos_class_t owner_class, qos_class_t waiter_class) {
        qos_mutex_t m = QOS_MUTEX_INITIALIZER;
        Puppet owner = { .fn = hold_lock, .after = release_and_check_base, .hold = &m };
        Puppet waiter = { .want = &m, .after = timedlock_100ms };
        char groups_before[4096], groups_during[4096];

        puppet_start(&owner);
        set_class(owner.tid, owner_class);
        assert_int_equal(task_attr_read(owner.tid, &owner.base), 0);
        read_cgroups(owner.tid, groups_before, sizeof(groups_before));
        puppet_start(&waiter);
        set_class(waiter.tid, waiter_class);
        puppet_finish(&waiter);
        assert_int_equal(waiter.result, -ETIMEDOUT);

        /* What the waiter lent stays while the owner holds the lock; the
         * unlock gives back the base exactly (checked by the owner). */
        qos_class_t during = class_of(owner.tid);
        read_cgroups(owner.tid, groups_during, sizeof(groups_during));
        assert_string_equal(groups_during, groups_before);
        puppet_finish(&owner);
        assert_int_equal(override_registry_size(), 0);
        assert_int_equal(qos_mutex_destroy(&m), 0);
        return during;
}

static void test_waiter_times_out_owner_keeps_loan_until_unlock(void **state) {
        assert_int_equal(contend(QOS_CLASS_BACKGROUND, QOS_CLASS_USER_INTERACTIVE), QOS_CLASS_USER_INTERACTIVE);
        assert_int_equal(contend(QOS_CLASS_UTILITY, QOS_CLASS_USER_INITIATED), QOS_CLASS_USER_INITIATED);
}

static void test_lends_only_upwards(void **state) {
        assert_int_equal(contend(QOS_CLASS_USER_INITIATED, QOS_CLASS_UTILITY), QOS_CLASS_USER_INITIATED);
        assert_int_equal(contend(QOS_CLASS_UTILITY, QOS_CLASS_UTILITY), QOS_CLASS_UTILITY);
}

/* The chain: T[i] holds m[i] and waits for m[i-1]; T[0] holds m[0]. */
#define CHAIN 10
static qos_mutex_t chain_mutex[CHAIN + 1];
static Puppet chain[CHAIN];

static void *chain_link(void *arg) {
        Puppet *p = arg;
        p->tid = gettid();
        CHECK(qos_self_set_class(QOS_CLASS_BACKGROUND, 0) == 0);
        CHECK(qos_mutex_lock(p->hold) == 0);
        sem_post(&p->started);
        if (p->want) {
                CHECK(qos_mutex_lock(p->want) == 0);
                CHECK(qos_mutex_unlock(p->want) == 0);
        } else
                sem_wait(&p->release);
        /* Checked here, alive: back to the base on its own unlock. */
        CHECK(qos_mutex_unlock(p->hold) == 0);
        p->result = qos_class_self() == QOS_CLASS_BACKGROUND ? 0 : -(int) qos_class_self();
        return NULL;
}

static void test_chain_is_followed_at_most_chain_max_deep(void **state) {
        Puppet waiter = { .want = &chain_mutex[CHAIN - 1] };

        for (int i = 0; i < CHAIN; i++) {
                chain_mutex[i] = (qos_mutex_t) QOS_MUTEX_INITIALIZER;
                chain[i] = (Puppet) { .hold = &chain_mutex[i], .want = i > 0 ? &chain_mutex[i - 1] : NULL };
                sem_init(&chain[i].started, 0, 0);
                sem_init(&chain[i].release, 0, 0);
                assert_int_equal(pthread_create(&chain[i].thread, NULL, chain_link, &chain[i]), 0);
                sem_wait(&chain[i].started);
                if (i > 0)
                        wait_until_blocked(chain[i].tid);
        }
        puppet_start(&waiter);
        set_class(waiter.tid, QOS_CLASS_USER_INTERACTIVE);
        waiter.after = timedlock_100ms;
        puppet_finish(&waiter);
        assert_int_equal(waiter.result, -ETIMEDOUT);

        /* QOS_MUTEX_CHAIN_MAX owners from the waiter's end are raised. */
        for (int i = 0; i < CHAIN; i++) {
                qos_class_t want = i >= CHAIN - QOS_MUTEX_CHAIN_MAX ? QOS_CLASS_USER_INTERACTIVE
                                                                   : QOS_CLASS_BACKGROUND;
                assert_int_equal(class_of(chain[i].tid), want);
        }
        sem_post(&chain[0].release);
        for (int i = 0; i < CHAIN; i++) {
                assert_int_equal(pthread_join(chain[i].thread, NULL), 0);
                if (chain[i].result != 0)
                        fail_msg("link %d has class 0x%x after its unlock", i, -chain[i].result);
        }
        assert_int_equal(override_registry_size(), 0);
}

static void test_lock_errors(void **state) {
        qos_mutex_t m;
        struct timespec bad = { .tv_nsec = 1000000000L };

        assert_int_equal(qos_mutex_init(&m), 0);
        assert_int_equal(qos_mutex_trylock(&m), 0);
        assert_int_equal(qos_mutex_trylock(&m), -EBUSY);
        assert_int_equal(qos_mutex_lock(&m), -EDEADLK);
        assert_int_equal(qos_mutex_destroy(&m), -EBUSY);
        assert_int_equal(qos_mutex_unlock(&m), 0);
        assert_int_equal(qos_mutex_timedlock(&m, &bad), 0); /* free: no wait, abstime unused */
        Puppet other = { .want = &m };
        puppet_start(&other);
        other.after = timedlock_100ms;
        puppet_finish(&other);
        assert_int_equal(other.result, -ETIMEDOUT);
        assert_int_equal(qos_mutex_unlock(&m), 0);
        assert_int_equal(qos_mutex_destroy(&m), 0);
        assert_int_equal(override_registry_size(), 0);
}

static qos_mutex_t cond_mutex = QOS_MUTEX_INITIALIZER;
static qos_cond_t cond = QOS_COND_INITIALIZER;
static int ready;

static void signal_ready(Puppet *p) {
        qos_mutex_lock(&cond_mutex);
        ready = 1;
        qos_cond_signal(&cond);
        qos_mutex_unlock(&cond_mutex);
}

static void test_cond_wait_and_timeout(void **state) {
        struct timespec ts;

        qos_mutex_lock(&cond_mutex);
        ts = deadline_ms(50);
        assert_int_equal(qos_cond_timedwait(&cond, &cond_mutex, &ts), -ETIMEDOUT);
        /* The mutex is held again after a timeout. */
        assert_int_equal(qos_mutex_trylock(&cond_mutex), -EBUSY);

        Puppet p = { .after = signal_ready };
        puppet_start(&p);
        sem_post(&p.release);
        while (!ready)
                assert_int_equal(qos_cond_wait(&cond, &cond_mutex), 0);
        qos_mutex_unlock(&cond_mutex);
        assert_int_equal(pthread_join(p.thread, NULL), 0);
}

int main(void) {
        if (geteuid() != 0) {
                printf("SKIP: needs root (overrides applied directly)\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_nesting_restores_a_hand_made_base),
                cmocka_unit_test(test_lenders_racing_on_one_holder),
                cmocka_unit_test(test_thread_exits_while_raised),
                cmocka_unit_test(test_waiter_times_out_owner_keeps_loan_until_unlock),
                cmocka_unit_test(test_lends_only_upwards),
                cmocka_unit_test(test_chain_is_followed_at_most_chain_max_deep),
                cmocka_unit_test(test_lock_errors),
                cmocka_unit_test(test_cond_wait_and_timeout),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
