/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl top, the sampler: one snapshot of the threads. Class, state, rule
 * and group come from qosd (ListTasks, as `qosctl ps -a` shows them);
 * without qosd they are read from the kernel attributes as `qosctl get`
 * does. CPU and run-queue wait come from /proc/TID/schedstat either way. */
#pragma once

#include <systemd/sd-bus.h>

#include "cli/top-model.h"

typedef struct TopSampler {
        sd_bus *bus;            /* kept open between snapshots; NULL until needed */
        const pid_t *only;      /* the processes to show; n_only 0: every one */
        size_t n_only;
} TopSampler;

/* 0 when this kernel reports per-thread run-queue wait, else -ENOENT
 * (no CONFIG_SCHED_INFO): top has nothing to show then. */
int top_sample_supported(void);

/* Take a snapshot. Fails only when nothing could be listed at all. */
int top_sample_take(TopSampler *s, TopSnapshot *ret);

void top_sampler_done(TopSampler *s);
