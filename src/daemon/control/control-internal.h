/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the control files share: pinning, the registry's bookkeeping and
 * the read-back after an apply. Not for other folders: task-control.h is
 * their door. */
#pragma once

#include "control/task-control.h"
#include "core/task-ref.h"

/* Apply want, or on a thread with loans make it the base under them
 * (override_rebase): the loans stay on top until they end. */
int control_apply_or_rebase(Manager *m, const TaskRef *ref, const TaskAttr *want, unsigned mask, ApplyResult *res);

/* The entry for the pinned task, or NULL; a stale entry (its TID recycled
 * while qosd missed the exit) is dropped unrestored. */
TaskEntry *control_entry_for(Manager *m, const TaskRef *ref);

/* Someone else changed e's task: not qosd's to restore any more. */
void control_mark_foreign(Manager *m, TaskEntry *e, const TaskAttr *cur);

/* control_mark_foreign() (true), unless the task is on its way out of
 * do_exit(), which takes it out of its cgroup: then forgotten (false). */
bool control_foreign_unless_exiting(Manager *m, TaskEntry *e, const TaskRef *ref, const TaskAttr *cur);

/* After an apply of want: what took, in the entry, the state file and the
 * counters. */
void control_note_result(Manager *m, TaskEntry *e, const TaskAttr *want, const ApplyResult *res);

/* A task that could not be pinned or read: gone. */
int control_vanished(Manager *m, pid_t tid);
