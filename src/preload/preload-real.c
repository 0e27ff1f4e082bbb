/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The calls we wrap, as the next object in the lookup order defines them.
 * Resolved on first use, not only in the constructor: another library's
 * constructor may create threads before ours runs. */
#include <dlfcn.h>
#include <stdatomic.h>

#include "preload/preload.h"

static void *next_symbol(_Atomic(void *) *slot, const char *name) {
        void *p = atomic_load_explicit(slot, memory_order_acquire);
        if (!p) {
                /* Racing threads find the same answer; the store is idempotent. */
                p = dlsym(RTLD_NEXT, name);
                atomic_store_explicit(slot, p, memory_order_release);
        }
        return p;
}

#define NEXT(fn_type, name)                                        \
        fn_type real_##name(void) {                                \
                static _Atomic(void *) slot;                       \
                return (fn_type) next_symbol(&slot, #name);        \
        }

NEXT(pthread_create_fn, pthread_create)
NEXT(pthread_setname_np_fn, pthread_setname_np)
NEXT(prctl_fn, prctl)
NEXT(mutex_fn, pthread_mutex_lock)
NEXT(mutex_fn, pthread_mutex_unlock)
NEXT(mutex_timed_fn, pthread_mutex_timedlock)
NEXT(mutex_clock_fn, pthread_mutex_clocklock)
/* dlsym() gives the default version: the condition variables of glibc
 * 2.3.2 on, never the old ones our version script leaves alone. */
NEXT(cond_wait_fn, pthread_cond_wait)
NEXT(cond_timed_fn, pthread_cond_timedwait)
NEXT(cond_clock_fn, pthread_cond_clockwait)
NEXT(cond_fn, pthread_cond_signal)
NEXT(cond_fn, pthread_cond_broadcast)
