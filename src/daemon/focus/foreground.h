/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The processes the user is looking at now, as a compositor (or root with
 * `qosctl foreground`) tells qosd. Each is pinned by its start time, so a
 * PID that exits and is reused by another program is not in the foreground.
 * Until the first SetForeground the set is "unknown", which is different
 * from empty: see ForegroundGate= in qosd(8). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/pid-map.h"

/* More than any desktop has windows; a bigger array is refused. */
#define FOREGROUND_MAX 1024

typedef struct Foreground {
        PidMap by_pid;                  /* pid -> start time + 1 (as a pointer) */
        bool known;                     /* someone has told qosd at least once */
} Foreground;

/* Replace the set. Processes that do not exist are skipped; the number
 * taken is returned, or -ENOMEM (the set is then empty). */
int foreground_set(Foreground *f, const pid_t *pids, size_t n);
bool foreground_contains(const Foreground *f, pid_t pid, uint64_t start_time);
/* The live members, ascending; caller frees. */
int foreground_list(const Foreground *f, pid_t **ret, size_t *ret_n);
void foreground_clear(Foreground *f);

/* What a change of f moved, for the gate_moved hook: the processes in
 * `before` (what f held before it, from foreground_list()) and those it
 * holds now, in one new array; caller frees. -ENOMEM. */
int foreground_moved(const Foreground *f, const pid_t *before, size_t n_before, pid_t **ret, size_t *ret_n);
