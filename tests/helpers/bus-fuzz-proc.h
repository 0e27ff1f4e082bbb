/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the kernel says about a thread, read from /proc by the bus fuzzer
 * itself (not through src/core, whose readers qosd uses: a reader that is
 * wrong there must not make the fuzzer agree with qosd). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A thread's scheduling as the tests compare it: policy (field 41 of
 * /proc/TID/stat), nice (field 19) and the slice of /proc/TID/sched in ns
 * (-1: no se.slice line, as for SCHED_IDLE). Written "P N S", S "-" for -1. */
typedef struct Triple {
        int policy;
        int nice;
        long long slice;
} Triple;

#define TRIPLE_STRING_MAX 64

int triple_parse(const char *s, Triple *ret);
const char *triple_format(const Triple *t, char buf[static TRIPLE_STRING_MAX]);
bool triple_equal(const Triple *a, const Triple *b);

/* Whether t is above ceiling: a real-time or deadline policy, a lower
 * nice, or the same nice with a shorter slice. */
bool triple_above(const Triple *t, const Triple *ceiling);

/* -ESRCH if the thread is gone. */
int proc_triple(pid_t tid, Triple *ret);

/* Field 22 of /proc/TID/stat: clock ticks since boot. */
int proc_start_ticks(pid_t tid, uint64_t *ret);

/* The real uid of the thread's process (Uid: of /proc/TID/status). */
int proc_real_uid(pid_t tid, uid_t *ret);

/* 1 if one of the thread's cgroups (any hierarchy of /proc/TID/cgroup) is
 * path, 0 if none, <0 if it cannot be read. */
int proc_in_cgroup(pid_t tid, const char *path);

/* The calling process's threads. *ret is allocated; caller frees. */
int proc_own_tasks(pid_t **ret, size_t *ret_n);
