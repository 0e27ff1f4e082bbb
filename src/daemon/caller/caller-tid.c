/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "caller/caller-tid.h"
#include "core/macro.h"
#include "core/proc.h"

int caller_resolve_tid(const Caller *c, pid_t tid, pid_t *ret) {
        char path[64];
        struct dirent *de;
        pid_t found = 0;
        unsigned read = 0;

        if (!c->nested) {
                *ret = tid;
                return 0;
        }
        snprintf(path, sizeof path, "/proc/%d/task", (int) c->pid);
        _cleanup_closedir_ DIR *d = opendir(path);
        if (!d)
                return -ESRCH;
        /* One status file per thread, at most CALLER_TID_SCAN_MAX of them:
         * what one call may make qosd read stays bounded, whatever the
         * caller's number of threads. */
        while (!found && read < CALLER_TID_SCAN_MAX && (de = readdir(d))) {
                char *end;
                long t = strtol(de->d_name, &end, 10);
                pid_t inner;
                unsigned depth;
                if (*end || t <= 0)
                        continue;
                read++;
                if (proc_ns_tid(c->pid, (pid_t) t, &inner, &depth) >= 0 && inner == tid)
                        found = (pid_t) t;
        }
        /* Read under /proc/PID/task/, each was a thread of the process at
         * PID; that was the caller only if its PID still names it: a PID is
         * not reused while its process lives. */
        if (!found || caller_recheck(c) < 0)
                return -ESRCH;
        *ret = found;
        return 0;
}
