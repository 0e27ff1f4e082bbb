/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rules again for renamed threads of matched processes: the proc
 * connector's COMM events go through the rename queue (rename-queue.h),
 * and the work is done after the batch of events, within each process's
 * budget. */
#pragma once

#include "state/manager.h"
#include "state/process-table.h"

/* Thread tid of process p was renamed (the main thread too: tid == p->pid). */
void renames_note(Manager *m, const ProcessRecord *p, pid_t tid);

/* Process tgid exited. */
void renames_forget(Manager *m, pid_t tgid);

void renames_free(Manager *m);
