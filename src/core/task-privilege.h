/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the kernel lets a caller without CAP_SYS_NICE do to the threads of
 * its own process, decided from the thread's current attributes before
 * anything is changed, so that a change that needs privilege is never
 * half-applied. The rules are the kernel's (sched_setattr, setpriority,
 * ioprio_set, /proc/TID/timerslack_ns), measured on 6.18:
 *   - nice may go up freely, down only as far as RLIMIT_NICE allows
 *     (nice >= 20 - rlimit);
 *   - SCHED_NORMAL <-> SCHED_BATCH and into SCHED_IDLE are free; leaving
 *     SCHED_IDLE needs the current nice to be within RLIMIT_NICE;
 *   - a set SCHED_RESET_ON_FORK flag cannot be cleared;
 *   - slices, best-effort and idle I/O priority, uclamp: free;
 *   - timer slack: the calling thread's own only;
 *   - the group: never, the cpu cgroup hierarchy is root's. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/task-attr.h"

/* RLIMIT_NICE's soft limit for this process (0 when unset or unreadable). */
uint64_t task_rlimit_nice(void);

/* The knobs an unprivileged caller can set on a thread of its own process:
 * all but the group on itself, and not the timer slack on another thread. */
unsigned task_unprivileged_knobs(bool self);

/* The target an unprivileged caller can actually reach on the knobs it
 * may set: a reset-on-fork flag the thread has stays set (the kernel
 * refuses to clear it, even on the way down). It only resets the custom
 * slice and negative nice of children, which a lower class does not have
 * or does not mind. */
void task_attr_unprivileged_target(const TaskAttr *cur, TaskAttr *want);

/* True if bringing a thread from cur to want on the knobs in mask needs
 * CAP_SYS_NICE, given RLIMIT_NICE rlimit_nice. Pure: no system calls. */
bool task_change_needs_privilege(const TaskAttr *cur, const TaskAttr *want, unsigned mask,
                                 uint64_t rlimit_nice);

/* What a caller can do on its own to a thread of its own process (self:
 * the calling thread), going from cur to want on the knobs in *mask: with
 * CAP_SYS_NICE all of them as asked; without, only those
 * task_unprivileged_knobs() allows (*mask is narrowed) and the target
 * task_attr_unprivileged_target() reaches (want is adjusted). Returns true
 * if even that needs privilege: then nothing may be applied directly, qosd
 * must be asked, so that a class is never half-applied. */
bool task_plan_own_change(const TaskAttr *cur, bool self, TaskAttr *want, unsigned *mask);
