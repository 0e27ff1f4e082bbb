/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rate limits for the read-only methods anyone may call that read files
 * (ListTasks, Explain: /proc; GetProfile: sysfs and debugfs, one file per
 * cpufreq policy). Each costs qosd those reads, so a loop of them from one
 * user would take the event loop from the kernel's events and from other
 * users' calls. A bucket per user and per method: beyond it the call is
 * answered with RateLimited before any /proc read. Root is not limited
 * (root can stop qosd anyway). Pure: the clock is passed in. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/rate-limit.h"

typedef enum QueryKind {
        QUERY_LIST_TASKS,       /* a walk over every thread (all) or every managed one */
        QUERY_EXPLAIN,          /* one thread */
        QUERY_GET_PROFILE,      /* the profile's knobs as the kernel has them now */
        _QUERY_KIND_MAX,
} QueryKind;

/* And the threads ListTasks reads for a user: each is several /proc
 * reads, so a call's cost is its rows, not the call. A call is answered
 * while the user's budget is above 0 and charged its rows afterwards. */
#define QUERY_ROWS_PER_SEC 2000.0
#define QUERY_ROWS_BURST 20000.0

typedef struct QueryLimits {
        bool ready;
        RateLimiter per_user[_QUERY_KIND_MAX];
        RateLimiter rows;       /* ListTasks, per user */
        uint64_t limited;       /* calls answered RateLimited */
} QueryLimits;

/* Calls a second per user, and the burst, for a method. */
double query_rate(QueryKind kind);
double query_burst(QueryKind kind);
const char *query_name(QueryKind kind);

/* Take one call of kind for uid at now_usec; false (and counted): over the
 * limit. Sets the tables up on first use. */
bool query_limits_take(QueryLimits *q, QueryKind kind, uid_t uid, uint64_t now_usec);

/* ListTasks's row budget: whether uid may list now (false: counted), and
 * the rows a call listed. Root has no budget. */
bool query_limits_rows_ready(QueryLimits *q, uid_t uid, uint64_t now_usec);
void query_limits_rows_charge(QueryLimits *q, uid_t uid, size_t rows, uint64_t now_usec);
