/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Acting on one thread: give it the class its rules say, register it as
 * inherited, put it back, or forget it. Every action pins the task first
 * (task-ref.h) and reads back before it writes, so qosd never acts on a
 * recycled TID and never overrides what someone else set after it. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "state/manager.h"
#include "core/task-ref.h"
#include "decide/policy.h"

/* The rules' decision with the foreground gate of the moment
 * (decide_rule()). */
int control_decide(Manager *m, const ProcessRecord *p, pid_t tid, const char *thread_name, Decision *ret);

/* Evaluate thread tid of process p and act on the verdict. creator is the
 * thread that created it (FORK event), 0 otherwise: a new thread's original
 * is its creator's original, not the class it inherited from qosd. */
int control_thread(Manager *m, const ProcessRecord *p, pid_t tid, pid_t creator);

/* Fast path for a new process of a matched program: forked by a thread
 * qosd manages, it has the same facts and the creator's name, so the same
 * verdict, and by kernel inheritance already the creator's settings (unless
 * reset-on-fork). Registered without a system call on it. Returns 1 if
 * done, 0 if the caller must take the full path (control_thread). */
int control_fork(Manager *m, const ProcessRecord *p, pid_t tid, uint64_t start_time, pid_t creator);

/* A task created by a managed task in a process no rule matches: it carries
 * its creator's class by kernel inheritance; register it so that it is
 * restored along with it. Returns 1 if registered, 0 if there was nothing
 * to track (the creator is not managed, or reset-on-fork gave defaults). */
int control_inherit(Manager *m, pid_t tid, pid_t tgid, pid_t creator);

/* Give thread tid (pinned by start_time, of process tgid) class c at
 * relpri, as a request through the broker asked, and register it as
 * TASK_REQUESTED with origin as its "why" (origin_private: it names the
 * owner's own rule file, see TaskEntry). A thread qosd already tracks
 * keeps its original. With renew false (a re-evaluation, not a new
 * request) a thread someone else changed since is left alone and its
 * request forgotten: returns 0 then, 1 if applied. -ESRCH: no such task,
 * -EBUSY: real-time, other negative errno: the kernel refused. */
int control_request(Manager *m, pid_t tid, uint64_t start_time, pid_t tgid, QClass c, int relpri,
                    const char *origin, bool origin_private, bool renew);

/* control_request() on a task the caller pinned and read already (base:
 * its settings without loans, override_base_view()): the broker opens the
 * thread once for both its verdict and the apply. */
int control_request_pinned(Manager *m, const TaskRef *ref, const TaskAttr *base, pid_t tgid, QClass c,
                           int relpri, const char *origin, bool origin_private, bool renew);

/* Put e's task back to its original (unless someone else changed it since)
 * and drop the entry. */
int control_restore(Manager *m, TaskEntry *e, const char *why);

/* The task exited (or its TID now names another task). */
void control_forget(Manager *m, pid_t tid);

/* SIGTERM with RestoreOnExit=yes. Returns the number restored. */
size_t control_restore_all(Manager *m);
