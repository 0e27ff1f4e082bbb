/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the preload reads of glibc's pthread_mutex_t: the fields of
 * <bits/struct_mutex.h> (public in the header, private in meaning) and the
 * values glibc's nptl keeps in them. Every reader here is one load from
 * the mutex itself, which the caller is about to touch anyway; none is a
 * system call. glibc_mutex_layout_check() decides once, at load time,
 * whether the running glibc is one whose meanings these are.
 *
 * From nptl/pthreadP.h (unchanged from 2.28 to 2.41):
 *   __kind: bits 0-1 the type (normal/timed 0, recursive 1, errorcheck 2,
 *           adaptive 3), 16 robust, 32 priority inheritance, 64 priority
 *           protection, 128 process-shared (also set on every robust
 *           one), 256 elided, 512 never elided.
 *   __lock: plain types 0 unlocked, 1 locked, 2 locked with waiters;
 *           robust ones the owner's TID | FUTEX_WAITERS | FUTEX_OWNER_DIED.
 *   __owner: the owner's TID while held (every type), 0 when not.
 *   __count: a recursive mutex's depth. */
#pragma once

#include <linux/futex.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#define GLIBC_MUTEX_KIND_MASK 3
#define GLIBC_MUTEX_RECURSIVE 1
#define GLIBC_MUTEX_ROBUST 16
#define GLIBC_MUTEX_PI 32
#define GLIBC_MUTEX_PP 64
#define GLIBC_MUTEX_PSHARED 128
#define GLIBC_MUTEX_ELISION 256

/* Types the preload lends on: not the kernel's protocols (PI, PP), not
 * elided (an elided critical section has no owner written anywhere), and
 * not process-shared, as far as __kind tells: glibc marks every robust
 * mutex process-shared (the kernel wakes robust waiters with shared
 * futexes), so a robust one is lent on, and the owner must then be a
 * thread of this process (the lender checks with tgkill()). */
#define GLIBC_MUTEX_NOT_LENT (GLIBC_MUTEX_PI | GLIBC_MUTEX_PP | GLIBC_MUTEX_ELISION)

static inline int glibc_mutex_kind(const pthread_mutex_t *m) {
        return __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
}

static inline bool glibc_mutex_lendable(const pthread_mutex_t *m) {
        int k = glibc_mutex_kind(m);
        return (k & GLIBC_MUTEX_NOT_LENT) == 0 && (!(k & GLIBC_MUTEX_PSHARED) || (k & GLIBC_MUTEX_ROBUST));
}

static inline pid_t glibc_mutex_owner(const pthread_mutex_t *m) {
        return __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
}

static inline bool glibc_mutex_robust(const pthread_mutex_t *m) {
        return glibc_mutex_kind(m) & GLIBC_MUTEX_ROBUST;
}

/* Held by someone (maybe the caller, maybe a dead owner). */
static inline bool glibc_mutex_held(const pthread_mutex_t *m) {
        return __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) != 0;
}

/* Held, and its unlock will wake someone (the unlock then makes a system
 * call anyway). */
static inline bool glibc_mutex_has_waiters(const pthread_mutex_t *m) {
        int w = __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);
        return glibc_mutex_robust(m) ? (w & FUTEX_WAITERS) != 0 : w > 1;
}

/* Whether an unlock by the owner now releases the mutex: not while a
 * recursive one is held more than once. Read by the owner only. */
static inline bool glibc_mutex_unlock_releases(const pthread_mutex_t *m) {
        return (glibc_mutex_kind(m) & GLIBC_MUTEX_KIND_MASK) != GLIBC_MUTEX_RECURSIVE || m->__data.__count <= 1;
}

/* Mark a mutex that owner holds as having waiters, as glibc's own lock
 * does before it sleeps (so the mark changes nothing glibc would not):
 * from then on owner's unlock wakes a waiter, and our unlock wrapper looks
 * for loans. False if owner does not hold it (any more). */
bool glibc_mutex_mark_waiters(pthread_mutex_t *m, pid_t owner);

/* Whether owner holds m with waiters marked: the state in which a loan
 * to owner will be found by owner's unlock. */
bool glibc_mutex_held_with_waiters(const pthread_mutex_t *m, pid_t owner);

/* At load time: is the running glibc one whose layout this is, and do its
 * mutexes behave so (each lendable type locked and unlocked once, with the
 * real calls)? Any doubt: false, and nothing is lent. */
typedef int (*mutex_fn)(pthread_mutex_t *);
bool glibc_mutex_layout_check(mutex_fn lock, mutex_fn unlock, const char **ret_why);
