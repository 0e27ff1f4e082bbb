/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "state/query-limits.h"

/* `watch -n 1 qosctl ps -a`, a script that explains every thread of a
 * large program and a status bar that shows the profile stay within these;
 * a loop does not. */
static const struct {
        const char *name;
        double rate, burst;
} limits[_QUERY_KIND_MAX] = {
        [QUERY_LIST_TASKS] = { "ListTasks", 2, 10 },
        [QUERY_EXPLAIN] = { "Explain", 20, 100 },
        [QUERY_GET_PROFILE] = { "GetProfile", 5, 20 },
};

double query_rate(QueryKind kind) {
        return limits[kind].rate;
}

double query_burst(QueryKind kind) {
        return limits[kind].burst;
}

const char *query_name(QueryKind kind) {
        return limits[kind].name;
}

static void setup(QueryLimits *q) {
        if (q->ready)
                return;
        for (QueryKind k = 0; k < _QUERY_KIND_MAX; k++)
                rate_limit_init(&q->per_user[k], limits[k].rate, limits[k].burst);
        rate_limit_init(&q->rows, QUERY_ROWS_PER_SEC, QUERY_ROWS_BURST);
        q->ready = true;
}

bool query_limits_rows_ready(QueryLimits *q, uid_t uid, uint64_t now_usec) {
        setup(q);
        if (uid == 0 || rate_limit_ready(&q->rows, (uint64_t) uid + 1, now_usec))
                return true;
        q->limited++;
        return false;
}

void query_limits_rows_charge(QueryLimits *q, uid_t uid, size_t rows, uint64_t now_usec) {
        setup(q);
        if (uid != 0)
                rate_limit_charge(&q->rows, (uint64_t) uid + 1, (double) rows, now_usec);
}

bool query_limits_take(QueryLimits *q, QueryKind kind, uid_t uid, uint64_t now_usec) {
        setup(q);
        if (uid == 0)
                return true;
        /* +1: the limiter's key 0 marks an empty slot. */
        if (rate_limit_take(&q->per_user[kind], (uint64_t) uid + 1, now_usec))
                return true;
        q->limited++;
        return false;
}
