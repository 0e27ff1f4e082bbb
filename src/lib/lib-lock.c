/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <pthread.h>

#include "lib/lib-lock.h"

static pthread_mutex_t locks[_LIB_LOCK_MAX] = {
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
        PTHREAD_MUTEX_INITIALIZER,
};
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void lock_all(void) {
        for (int i = 0; i < _LIB_LOCK_MAX; i++)
                pthread_mutex_lock(&locks[i]);
}

static void unlock_all(void) {
        for (int i = _LIB_LOCK_MAX - 1; i >= 0; i--)
                pthread_mutex_unlock(&locks[i]);
}

/* glibc drops these handlers when libqos is unloaded (dlclose). */
static void register_atfork(void) {
        (void) pthread_atfork(lock_all, unlock_all, unlock_all);
}

void lib_lock(LibLock l) {
        pthread_once(&atfork_once, register_atfork);
        pthread_mutex_lock(&locks[l]);
}

void lib_unlock(LibLock l) {
        pthread_mutex_unlock(&locks[l]);
}
