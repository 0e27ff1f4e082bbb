/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pthread_create(): the new thread starts in a trampoline that gives it
 * its class (from its first name, its creator's) before the start routine
 * runs. The routine and its argument travel in a slot of a fixed pool, not
 * in allocated memory: pthread_create() may be called from an allocator's
 * own background-thread code, where malloc() would deadlock. A slot is
 * held only from pthread_create() until the thread starts; if all are
 * held, the thread is created without the trampoline and qosd's event
 * gives it its class, as without the preload. */
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "preload/preload.h"

#define START_SLOTS 256

typedef struct StartSlot {
        atomic_bool used;
        void *(*start_routine)(void *);
        void *arg;
} StartSlot;

static StartSlot slots[START_SLOTS];
static atomic_uint next_slot;

static StartSlot *slot_claim(void) {
        unsigned first = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed);
        for (unsigned i = 0; i < START_SLOTS; i++) {
                StartSlot *s = &slots[(first + i) % START_SLOTS];
                bool expected = false;
                if (atomic_compare_exchange_strong_explicit(&s->used, &expected, true, memory_order_acquire,
                                                            memory_order_relaxed))
                        return s;
        }
        return NULL;
}

static void slot_release(StartSlot *s) {
        atomic_store_explicit(&s->used, false, memory_order_release);
}

/* After fork() only the calling thread exists: slots that other threads
 * held for threads not yet started belong to no one in the child. */
void preload_thread_starts_reset(void) {
        for (size_t i = 0; i < START_SLOTS; i++)
                atomic_store_explicit(&slots[i].used, false, memory_order_relaxed);
}

static void *trampoline(void *userdata) {
        StartSlot *s = userdata;
        void *(*start_routine)(void *) = s->start_routine;
        void *arg = s->arg;

        slot_release(s);
        preload_apply(gettid(), true, PRELOAD_START);
        return start_routine(arg);
}

__attribute__((visibility("default"))) int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                                          void *(*start_routine)(void *), void *arg) {
        pthread_create_fn next = real_pthread_create();
        StartSlot *s;
        int r;

        if (!next)
                return EAGAIN;
        if (!preload_active() || !(s = slot_claim()))
                return next(thread, attr, start_routine, arg);
        s->start_routine = start_routine;
        s->arg = arg;
        r = next(thread, attr, trampoline, s);
        if (r != 0)
                slot_release(s);
        return r;
}
