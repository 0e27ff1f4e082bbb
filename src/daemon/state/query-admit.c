/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/bus-protocol.h"
#include "core/clock.h"
#include "core/log.h"
#include "state/query-admit.h"

int query_admit(Manager *m, sd_bus_message *msg, QueryKind kind, Caller *ret, sd_bus_error *error) {
        int r = caller_identify_or_refuse(&m->callers, msg, ret, error);
        if (r < 0)
                return r;
        if (!query_limits_take(&m->queries, kind, ret->uid, clock_usec(CLOCK_MONOTONIC))) {
                log_debug("%s from pid %d uid %u: rate limited", query_name(kind), (int) ret->pid,
                          (unsigned) ret->uid);
                return sd_bus_error_setf(error, QOS_BUS_ERROR_RATE_LIMITED,
                                         "Too many %s calls from uid %u (at most %g a second, bursts of %g); "
                                         "try again in a moment.", query_name(kind), (unsigned) ret->uid,
                                         query_rate(kind), query_burst(kind));
        }
        return 0;
}
