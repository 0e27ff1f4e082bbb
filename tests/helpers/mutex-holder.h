/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A thread that takes and releases mutexes on command, for the lending and
 * semantics helpers. Commands and results travel through pipes, so that
 * the helper's own coordination never goes through the calls under test. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

typedef enum HoldOp {
        HOLD_LOCK,
        HOLD_UNLOCK,
        HOLD_TRYLOCK,
        HOLD_LOCK_FOR,  /* lock, keep it delay_ms, unlock; the lock's result */
        HOLD_EXIT,      /* end the thread now, whatever it holds */
} HoldOp;

typedef struct Holder {
        pthread_t thread;
        int cmd[2], res[2];
        char name[16];
        pid_t tid;
        bool running;
} Holder;

/* The thread names itself (PR_SET_NAME) before it answers anything. */
void holder_start(Holder *h, const char *name);
/* HOLD_EXIT if it still runs, then join. */
void holder_stop(Holder *h);
/* op on m after delay_ms (HOLD_LOCK_FOR: at once, held delay_ms);
 * holder_result() waits for its result. */
void holder_later(Holder *h, HoldOp op, pthread_mutex_t *m, unsigned delay_ms);
int holder_result(Holder *h);
/* holder_later() without delay, then holder_result(). */
int holder_do(Holder *h, HoldOp op, pthread_mutex_t *m);

struct timespec deadline_ms(clockid_t clock, unsigned ms);
void sleep_ms(unsigned ms);

/* The calling thread's scheduling settings as "POLICY NICE SLICE_NS": a
 * class change (or a loan) shows as a change of this string. */
void thread_settings(char *buf, size_t n);
/* The same for thread tid of any process (0: the calling thread). */
void thread_settings_of(pid_t tid, char *buf, size_t n);
/* Poll thread_settings() every millisecond until it differs from from, at
 * most ms; the last reading in now. True if it changed. */
bool thread_settings_wait_change(const char *from, char *now, size_t n, unsigned ms);
