/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Why a thread has its class: the facts the rules looked at, the verdict
 * for the process and for the thread, what qosd set, what the kernel
 * accepted or refused, and whether someone else changed it since. An
 * ordered list of (key, value) lines; D-Bus carries it as a(ss). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "state/manager.h"

typedef struct ExplainLine {
        char *key, *value;
} ExplainLine;

typedef struct Explanation {
        ExplainLine *lines;
        size_t n;
} Explanation;

/* What stands for a value the viewer may not see. */
#define EXPLAIN_HIDDEN "hidden: not your process"
/* ... and for a verdict, limit or origin from the owner's own rule file. */
#define EXPLAIN_USER_RULE "a user rule (" EXPLAIN_HIDDEN ")"

/* Whether viewer (a uid) sees all of thread tid: root and the thread's
 * owner do (the uid half of /proc's ptrace check); others see what /proc
 * shows any user, and EXPLAIN_HIDDEN for the executable, the command line,
 * the cgroup (and the group and unit, which name it), the timer slack, and
 * EXPLAIN_USER_RULE for whatever comes from the owner's own rule file
 * (verdicts, the MaxClass= that capped it, origins that name the file).
 * docs/security.md says why. */
bool explain_may_see(uid_t viewer, pid_t tid);

/* As viewer sees it; -ESRCH if no such thread. */
int explain_thread(Manager *m, pid_t tid, uid_t viewer, Explanation *ret);
void explanation_clear(Explanation *x);

/* One line for `qosctl ps`: the class qosd gave (or the one the knobs
 * show), its state and origin, and the knobs in force now. */
typedef struct TaskRow {
        pid_t pid, tid;
        char comm[16];
        const char *class;
        const char *state;
        char origin[256];
        char knobs[160];
} TaskRow;

/* own: the viewer may see all of it (explain_may_see). */
int task_row_fill(Manager *m, pid_t pid, pid_t tid, bool own, TaskRow *ret);
