/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The scheduler knobs a class is made of. Each is probed, applied and
 * reported on its own, so a kernel that lacks one still gets the rest;
 * how, knob by knob, is its row in the knob table (knob-table.h). */
#pragma once

#include <stddef.h>

typedef enum Knob {
        KNOB_POLICY,      /* SCHED_NORMAL / SCHED_BATCH / SCHED_IDLE */
        KNOB_NICE,
        KNOB_SLICE,       /* EEVDF custom slice, sched_attr.sched_runtime (6.12+) */
        KNOB_UCLAMP,      /* utilisation clamps (CONFIG_UCLAMP_TASK) */
        KNOB_RAMPUP,      /* ramp-up multiplier: proposed upstream, no interface yet */
        KNOB_IOPRIO,
        KNOB_TIMER_SLACK,
        KNOB_GROUP,       /* the cpu cgroup the thread competes in: qosd's group for its class */
        KNOB_CPUS,        /* the CPUs it may run on: background on the efficient ones (cpu-kinds.h) */
        _KNOB_MAX,
} Knob;

#define KNOB_BIT(k) (1u << (k))
#define KNOBS_ALL ((1u << _KNOB_MAX) - 1)

const char *knob_to_string(Knob k);
/* The knob of that name ("timer-slack"), or -EINVAL. */
int knob_from_string(const char *s);
/* "policy,nice,slice" for a bit mask; writes into buf, returns buf. */
const char *knob_mask_to_string(unsigned mask, char *buf, size_t size);
