/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gnu/libc-version.h>
#include <stdio.h>
#include <unistd.h>

#include "preload/glibc-mutex.h"

/* The glibc releases whose nptl has the meanings glibc-mutex.h lists
 * (checked against their pthreadP.h and pthread_mutex_lock.c). A newer
 * one may have changed them: until it is checked, nothing is lent. */
#define GLIBC_MINOR_FIRST 28
#define GLIBC_MINOR_LAST 41

static int lock_word(const pthread_mutex_t *m) {
        return __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);
}

bool glibc_mutex_mark_waiters(pthread_mutex_t *m, pid_t owner) {
        int w = lock_word(m);
        if (glibc_mutex_owner(m) != owner)
                return false;
        if (glibc_mutex_robust(m)) {
                /* A dead owner's mutex goes to the next locker: nobody to lend to. */
                if ((w & FUTEX_TID_MASK) != owner || (w & FUTEX_OWNER_DIED))
                        return false;
                return (w & FUTEX_WAITERS) ||
                       __atomic_compare_exchange_n(&m->__data.__lock, &w, w | (int) FUTEX_WAITERS, false,
                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        }
        /* 1 -> 2 is the exchange glibc's __lll_lock_wait() makes before it
         * sleeps; 0 means released. */
        if (w == 2)
                return true;
        return w == 1 && __atomic_compare_exchange_n(&m->__data.__lock, &w, 2, false, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED);
}

bool glibc_mutex_held_with_waiters(const pthread_mutex_t *m, pid_t owner) {
        return glibc_mutex_owner(m) == owner && glibc_mutex_has_waiters(m);
}

static bool version_known(void) {
        unsigned major, minor;
        if (sscanf(gnu_get_libc_version(), "%u.%u", &major, &minor) != 2)
                return false;
        return major == 2 && minor >= GLIBC_MINOR_FIRST && minor <= GLIBC_MINOR_LAST;
}

/* One mutex of the given type and robustness, locked and unlocked with
 * the real calls: the owner and lock word must read as glibc-mutex.h
 * says, held and released. */
static bool behaves(int type, bool robust, mutex_fn lock, mutex_fn unlock) {
        pthread_mutexattr_t a;
        pthread_mutex_t m;
        pid_t self = gettid();
        bool ok;

        if (pthread_mutexattr_init(&a) != 0)
                return false;
        ok = pthread_mutexattr_settype(&a, type) == 0 &&
             (!robust || pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0) &&
             pthread_mutex_init(&m, &a) == 0;
        pthread_mutexattr_destroy(&a);
        if (!ok)
                return false;
        ok = glibc_mutex_lendable(&m) && glibc_mutex_robust(&m) == robust &&
             (glibc_mutex_kind(&m) & GLIBC_MUTEX_KIND_MASK) == type && glibc_mutex_owner(&m) == 0 &&
             lock_word(&m) == 0;
        if (ok && lock(&m) == 0) {
                ok = glibc_mutex_owner(&m) == self && lock_word(&m) == (robust ? self : 1) &&
                     !glibc_mutex_has_waiters(&m) && glibc_mutex_unlock_releases(&m);
                ok = unlock(&m) == 0 && ok;
                ok = ok && glibc_mutex_owner(&m) == 0 && lock_word(&m) == 0;
        } else
                ok = false;
        pthread_mutex_destroy(&m);
        return ok;
}

bool glibc_mutex_layout_check(mutex_fn lock, mutex_fn unlock, const char **ret_why) {
        static const int types[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK };

        if (!lock || !unlock) {
                *ret_why = "no pthread_mutex_lock/unlock after us";
                return false;
        }
        if (!version_known()) {
                *ret_why = "a glibc release whose mutex layout is not known";
                return false;
        }
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
                for (int robust = 0; robust <= 1; robust++)
                        if (!behaves(types[i], robust, lock, unlock)) {
                                *ret_why = "mutexes that do not read as the known layout";
                                return false;
                        }
        *ret_why = NULL;
        return true;
}
