/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <unistd.h>

#include "lib/held-requests.h"
#include "lib/lib-lock.h"
#include "core/macro.h"

/* Guarded by LIB_LOCK_HELD. A ring: next is where the next entry goes. */
static pid_t held[HELD_REQUESTS_MAX];
static unsigned next;
static pid_t owner; /* the process the TIDs belong to */

/* After fork() the TIDs are the parent's: the child starts empty. */
static void reset_if_forked(void) {
        if (owner != getpid()) {
                for (size_t i = 0; i < ELEMENTSOF(held); i++)
                        held[i] = 0;
                owner = getpid();
        }
}

static pid_t *find(pid_t tid) {
        for (size_t i = 0; i < ELEMENTSOF(held); i++)
                if (held[i] == tid)
                        return &held[i];
        return NULL;
}

bool held_requests_contains(pid_t tid) {
        lib_lock(LIB_LOCK_HELD);
        reset_if_forked();
        bool found = find(tid) != NULL;
        lib_unlock(LIB_LOCK_HELD);
        return found;
}

void held_requests_set(pid_t tid, bool on) {
        lib_lock(LIB_LOCK_HELD);
        reset_if_forked();
        pid_t *p = find(tid);
        if (on && !p) {
                held[next] = tid;
                next = (next + 1) % HELD_REQUESTS_MAX;
        } else if (!on && p)
                *p = 0;
        lib_unlock(LIB_LOCK_HELD);
}
