/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/ananicy-keys.h"
#include "core/macro.h"

/* Every key ananicy knows, and what qosd makes of it. lost: why it is not
 * carried over; NULL when the class carries it (nice, sched, ioclass decide
 * the class; their real-time and fine-grained parts are judged apart). */
const AnanicyKey ananicy_known_keys[] = {
        { "nice", VALUE_INT, NULL },
        { "sched", VALUE_STRING, NULL },
        { "ioclass", VALUE_STRING, NULL },
        { "latency_nice", VALUE_INT, "the class decides the time slice" },
        { "rtprio", VALUE_INT, "qosd gives no real-time priorities" },
        { "ionice", VALUE_INT, "the class decides the I/O priority" },
        { "oom_score_adj", VALUE_INT, "qosd does not touch the OOM killer" },
        { "cgroup", VALUE_STRING, "qosd sets group shares per class, not ananicy's cgroups" },
};

const size_t ananicy_n_known_keys = ELEMENTSOF(ananicy_known_keys);
