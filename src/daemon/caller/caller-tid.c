/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "caller/caller-tid.h"
#include "core/macro.h"
#include "core/proc.h"

int caller_resolve_tid(const Caller *c, pid_t tid, pid_t *ret) {
        _cleanup_free_ pid_t *tasks = NULL;
        size_t n;
        pid_t found = 0;

        if (!c->nested) {
                *ret = tid;
                return 0;
        }
        if (proc_list_tasks(c->pid, &tasks, &n) < 0)
                return -ESRCH;
        for (size_t i = 0; i < n && !found; i++) {
                pid_t inner;
                unsigned depth;
                if (proc_ns_tid(c->pid, tasks[i], &inner, &depth) >= 0 && inner == tid)
                        found = tasks[i];
        }
        /* Read under /proc/PID/task/, each was a thread of the process at
         * PID; that was the caller only if its PID still names it: a PID is
         * not reused while its process lives. */
        if (!found || caller_recheck(c) < 0)
                return -ESRCH;
        *ret = found;
        return 0;
}
