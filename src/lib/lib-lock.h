/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library's few locks, which fork() must not leave locked in the
 * child: pthread_atfork() takes them all before a fork and releases them
 * on both sides. Never hold two at once. */
#pragma once

typedef enum LibLock {
        LIB_LOCK_ATTR,    /* the attribute table */
        LIB_LOCK_HELD,    /* the threads with a held request */
        LIB_LOCK_BUS,     /* the bus connection, held for a whole call */
        LIB_LOCK_OVERRIDE, /* the override registry and every qos_mutex_t's lent list */
        _LIB_LOCK_MAX,
} LibLock;

void lib_lock(LibLock l);
void lib_unlock(LibLock l);
