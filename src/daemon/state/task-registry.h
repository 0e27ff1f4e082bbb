/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tasks qosd is responsible for: what it set, what they had before (the
 * original to restore), and what the kernel said. Keyed by TID; an entry
 * belongs to (tid, start_time) only, so a recycled TID never inherits it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/pid-map.h"
#include "core/qclass.h"
#include "core/task-apply.h"

typedef enum TaskState {
        TASK_APPLIED,           /* has qosd's class (possibly with refused knobs) */
        TASK_INHERITED,         /* created by a managed task; carries its class, no rule of its own */
        TASK_FOREIGN,           /* someone else changed it after qosd did: left alone */
        TASK_REQUESTED,         /* has the class its program asked qosd for (the broker):
                                 * the request overrides the rules for this thread */
        _TASK_STATE_MAX,
} TaskState;

typedef struct TaskEntry {
        pid_t tid, tgid;
        uint64_t start_time;
        QClass class;           /* the class qosd gave it */
        QClass wanted;          /* what the rule (or the request) asked before a cap */
        bool held;              /* TASK_APPLIED: the rule's user-interactive is held at
                                 * utility by the foreground gate (Decision.held) */
        int relpri;             /* TASK_REQUESTED: the relative priority asked for */
        pid_t requester;        /* TASK_REQUESTED: the process that asked, and its uid */
        uid_t requester_uid;
        bool requester_privileged;      /* it was when it asked (Caller.privileged) */
        TaskState state;
        TaskAttr orig;          /* what the task would have without qosd */
        TaskAttr set;           /* what it read back after qosd acted: the coexistence reference */
        unsigned applied, failed, unsupported;
        int error[_KNOB_MAX];
        char *origin;           /* "file:line" of the deciding Class= line, or why */
        bool origin_private;    /* it names a file of the owner's own: only they and root see it */
        char *app;
        char comm[16];          /* thread name at the last evaluation */
        bool recovered;         /* original came from the state file after a restart */
        unsigned scan_gen;      /* last scan that saw the task alive */
} TaskEntry;

typedef struct TaskRegistry {
        PidMap by_tid;
        /* How many entries each process has (tgid -> count as a pointer,
         * never 0): a new thread in a process without any costs no read. */
        PidMap count_by_tgid;
} TaskRegistry;

const char *task_state_to_string(TaskState s);

TaskEntry *registry_get(const TaskRegistry *r, pid_t tid);
/* A new entry for (tid, start_time), replacing a stale one for the same TID. */
int registry_add(TaskRegistry *r, pid_t tid, pid_t tgid, uint64_t start_time, TaskEntry **ret);
void registry_remove(TaskRegistry *r, pid_t tid);
size_t registry_size(const TaskRegistry *r);
/* Whether any thread of process tgid has an entry. */
bool registry_has_process(const TaskRegistry *r, pid_t tgid);
void registry_clear(TaskRegistry *r);
/* origin_private: origin names a file in the owner's own rule directory. */
int registry_set_origin(TaskEntry *e, const char *app, const char *origin, bool origin_private);

/* Snapshot of all entries (pointers stay valid until the registry changes). */
int registry_list(const TaskRegistry *r, TaskEntry ***ret, size_t *ret_n);
