/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libqos-preload.so: classes from the rules at process start, at thread
 * creation and at rename, before qosd's events arrive. Its parts: the state
 * the constructor builds (read-only afterwards), applying a class to one
 * thread, the calls it wraps, and diagnostics that stay silent unless
 * QOS_PRELOAD_DEBUG asks for them. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "preload/glibc-mutex.h"
#include "core/macro.h"
#include "core/qclass.h"

/* Why a thread is looked at; printed in diagnostics. */
typedef enum PreloadEvent {
        PRELOAD_EXEC,           /* the constructor, before main() */
        PRELOAD_START,          /* a new thread, before its start routine */
        PRELOAD_RENAME,         /* pthread_setname_np() or PR_SET_NAME */
        PRELOAD_FORK,           /* the child of fork() */
} PreloadEvent;

/* True once the constructor found a rule for this program: until then, and
 * for every program no rule matches, the wrappers only pass calls on. */
bool preload_active(void);

/* The class the rules give a thread of this process called name
 * (QCLASS_UNSPECIFIED: none). */
QClass preload_verdict(const char *name);

/* Give thread tid of this process (self: the caller) the class of its
 * current name, all or nothing; what needs privilege is left to qosd.
 * Never fails the caller: errno is kept, cancellation is held off, nothing
 * is allocated. */
void preload_apply(pid_t tid, bool self, PreloadEvent ev);

/* The fork() child handler: the new process's only thread. */
void preload_thread_starts_reset(void);

/* The next definitions of the calls we wrap (libc's, or another
 * preload's); NULL only if the C library lacks them. */
typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*pthread_setname_np_fn)(pthread_t, const char *);
typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);
pthread_create_fn real_pthread_create(void);
pthread_setname_np_fn real_pthread_setname_np(void);
prctl_fn real_prctl(void);
typedef int (*mutex_timed_fn)(pthread_mutex_t *, const struct timespec *);
typedef int (*mutex_clock_fn)(pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timed_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_clock_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*cond_fn)(pthread_cond_t *);
mutex_fn real_pthread_mutex_lock(void);
mutex_fn real_pthread_mutex_unlock(void);
mutex_timed_fn real_pthread_mutex_timedlock(void);
mutex_clock_fn real_pthread_mutex_clocklock(void);
cond_wait_fn real_pthread_cond_wait(void);
cond_timed_fn real_pthread_cond_timedwait(void);
cond_clock_fn real_pthread_cond_clockwait(void);
cond_fn real_pthread_cond_signal(void);
cond_fn real_pthread_cond_broadcast(void);

/* Lending on contended pthread mutexes (preload-lend.c). On once the
 * constructor found a rule, glibc's mutex layout the known one and
 * QOS_PRELOAD_LEND not 0. */
void preload_lend_init(void);

/* What the wrappers read, one cache line, written by the constructor:
 * glibc's calls resolved once, so that an uncontended lock or unlock is a
 * load of the lock word, a compare and a jump to glibc (.lock and .unlock
 * start as calls through the real_*() lookups, for calls made before the
 * constructor; the others are used only once .on is set). */
typedef struct PreloadLending {
        bool on;
        mutex_fn lock, unlock;
        mutex_timed_fn timedlock;
        mutex_clock_fn clocklock;
        cond_wait_fn cond_wait;
        cond_timed_fn cond_timedwait;
        cond_clock_fn cond_clockwait;
        cond_fn cond_signal, cond_broadcast;
} PreloadLending;
extern PreloadLending preload_lending;

static inline bool preload_lend_enabled(void) {
        return __builtin_expect(__atomic_load_n(&preload_lending.on, __ATOMIC_ACQUIRE), 1);
}

pid_t preload_self_tid(void);
/* The caller is about to wait on m: lend to its owner if the owner's class
 * is below ours. */
void preload_lend_before_wait(pthread_mutex_t *m);
/* The caller's wait is over (whatever its result): end the loans it made
 * that their holder has not ended. One TLS load when it made none. */
void preload_lend_after_wait(void);
/* The caller has just released lock, which showed waiters: end the loans
 * made to it on lock. */
void preload_lend_end_held(const void *lock);
/* The caller is about to wait on c, to take m again once woken: a thread
 * that signals c while holding m lends itself the caller's class (glibc
 * takes m back inside its call, where no wrapper of ours runs). Ended
 * with preload_cond_wait_end(), also when the wait is cancelled. */
void preload_cond_wait_begin(const pthread_cond_t *c, const pthread_mutex_t *m);
void preload_cond_wait_end(void);
/* The caller is about to signal or broadcast c: if it holds the mutex a
 * waiter on c will take again, it is lent the waiter's class (the highest
 * of them) until it releases that mutex. One load when nobody waits. */
void preload_lend_before_signal(const pthread_cond_t *c);
/* Loans made since the process started (for QOS_PRELOAD_DEBUG and tests). */
unsigned long preload_lend_count(void);

/* Without CAP_SYS_NICE: a loan of lender's class (at most c) to tid
 * through qosd, by libqos.so (loaded at the first call); its handle
 * belongs to that libqos.so and is ended only with preload_broker_end().
 * -EOPNOTSUPP where libqos.so cannot be loaded. */
typedef struct qos_override qos_override_t;
int preload_broker_begin(pid_t lender, pid_t tid, QClass c, qos_override_t **ret);
int preload_broker_end(qos_override_t *o);

/* Diagnostics: QOS_PRELOAD_DEBUG=1 (stderr) or =/absolute/file (appended,
 * opened for each line so that a program closing its descriptors cannot
 * make us write into one of its files). Ignored in setuid programs. */
void preload_log_init(void);
bool preload_log_enabled(void);
void preload_log(const char *fmt, ...) _printf_(1, 2);

const char *preload_event_to_string(PreloadEvent ev);
