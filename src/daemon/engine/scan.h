/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Evaluating whole processes from /proc: at start, after an event loss,
 * after a reload, and periodically. A scan is how qosd converges whatever
 * events it missed. */
#pragma once

#include <sys/types.h>

#include "state/manager.h"

typedef enum ScanReason {
        SCAN_EXEC,              /* the process just exec'd: a new program */
        SCAN_REEVALUATE,        /* rescan/reload: same program, maybe new rules */
} ScanReason;

/* Read process pid afresh, match it, and act on each of its threads: how
 * many it evaluated (0 for a process no rule matches), or <0 errno. */
int scan_process(Manager *m, pid_t pid, ScanReason why);

/* Every process in /proc, then drop what no longer exists. */
int scan_all(Manager *m, const char *why);

/* The processes of one user (real uid, as the rules see it): after that
 * user's rules changed. A process that changes uid meanwhile is left to
 * the periodic scan. */
int scan_user(Manager *m, uid_t uid, const char *why);
