/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Why a thread has its class: the facts the rules looked at, the verdict
 * for the process and for the thread, what qosd set, what the kernel
 * accepted or refused, and whether someone else changed it since. An
 * ordered list of (key, value) lines; D-Bus carries it as a(ss). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "manager.h"

typedef struct ExplainLine {
        char *key, *value;
} ExplainLine;

typedef struct Explanation {
        ExplainLine *lines;
        size_t n;
} Explanation;

/* -ESRCH if no such thread. */
int explain_thread(Manager *m, pid_t tid, Explanation *ret);
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

int task_row_fill(Manager *m, pid_t pid, pid_t tid, TaskRow *ret);
