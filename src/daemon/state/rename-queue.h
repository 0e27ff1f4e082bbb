/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thread renames of matched processes, coalesced, with a budget per
 * process. A rename is one cheap system call for a program and work for
 * qosd: the renamed thread evaluated again (its [Thread:] rule; the
 * process's rules match its executable and command line, never a thread's
 * name, the main thread's included). So renames are only noted when they
 * happen; the work is done once per batch of events, each renamed thread
 * once, and a process gets at most RENAME_RATE thread evaluations a second
 * (bursts of RENAME_BURST): a program that renames its threads in a loop
 * waits for its new classes, qosd and everyone else do not. Pure: the
 * clock is passed in. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/pid-map.h"

#define RENAME_RATE 500.0
#define RENAME_BURST 2000.0
/* Renamed threads remembered one by one; beyond, the whole process. */
#define RENAME_TIDS_MAX 32

typedef struct RenameWork {
        pid_t tgid;
        uint64_t start_time;    /* the process's, as qosd knew it when noted */
        bool whole;             /* every thread (more were renamed than tids holds) */
        size_t n_tids;
        pid_t tids[RENAME_TIDS_MAX];
} RenameWork;

typedef struct RenameQueue {
        PidMap by_tgid;         /* RenameBudget*, one per process that renamed */
        pid_t *pending;         /* processes with work, in the order they got it */
        size_t n_pending, n_alloc;
} RenameQueue;

/* Note a rename of thread tid of process tgid, started at start_time.
 * -ENOMEM only. */
int rename_queue_note(RenameQueue *q, pid_t tgid, uint64_t start_time, pid_t tid);

/* Take the next process whose budget allows its work now: true and *ret,
 * with the work no longer pending. False when nothing is ready; then
 * *ret_wake_usec is when the first waiting one will be (0: none waits). */
bool rename_queue_take(RenameQueue *q, uint64_t now_usec, RenameWork *ret, uint64_t *ret_wake_usec);

/* Charge the process for the threads its work evaluated. */
void rename_queue_charge(RenameQueue *q, pid_t tgid, size_t n_threads, uint64_t now_usec);

/* The process exited: its budget and any work go. */
void rename_queue_forget(RenameQueue *q, pid_t tgid);

/* Forget the processes that are not keys of alive (those whose exit was
 * lost). */
void rename_queue_keep(RenameQueue *q, const PidMap *alive);

bool rename_queue_has_work(const RenameQueue *q);
size_t rename_queue_size(const RenameQueue *q);
void rename_queue_clear(RenameQueue *q);
