/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A TID pinned to one task. A TID is only a number the kernel recycles; a
 * task is (TID, start time). The pin holds a pidfd where the kernel allows
 * one (PIDFD_THREAD, 6.9+), so "the task is still alive" is a poll() and not
 * a guess: anything read or applied between task_ref_open() and a
 * successful task_ref_alive() was read from or applied to that same task. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/macro.h"
#include "core/task-apply.h"

typedef struct TaskRef {
        pid_t tid;
        uint64_t start_time;    /* clock ticks since boot, from /proc/TID/stat */
        int pidfd;              /* -1 where the kernel has no thread pidfds */
} TaskRef;

#define TASK_REF_NULL ((TaskRef) { .pidfd = -1 })

/* Pin whatever task has tid now. If expected_start is not 0 and the task's
 * start time differs, the TID was recycled: -ESRCH, as if it had exited. */
int task_ref_open(pid_t tid, uint64_t expected_start, TaskRef *ret);
void task_ref_close(TaskRef *ref);
/* For a TaskRef on the stack: closed when it goes out of scope. */
#define _cleanup_task_ref_ _cleanup_(task_ref_close)

/* 0 if the pinned task still runs, -ESRCH if it exited (its TID may already
 * belong to another task). Without a pidfd, the start time is re-read. */
int task_ref_alive(const TaskRef *ref);

/* True if the pinned task has exited or is exiting (the kernel's
 * PF_EXITING, set when it enters do_exit() and kept by a zombie): its
 * settings and cgroup may already be the exit path's, not anyone's choice.
 * The pin alone calls such a task alive until it is reaped. */
bool task_ref_exiting(const TaskRef *ref);

/* task_apply_attr() on the pinned task, checked afterwards: -ESRCH if it
 * exited meanwhile (then nothing can be said about what was changed, and the
 * caller must treat the TID as unknown). */
int task_ref_apply(const TaskRef *ref, const TaskAttr *want, unsigned mask, ApplyResult *ret);

/* task_attr_read() on the pinned task, checked afterwards. */
int task_ref_read_attr(const TaskRef *ref, TaskAttr *ret);
