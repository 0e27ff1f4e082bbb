/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* System-wide scheduler profiles: the knobs outside any thread (scheduler
 * debugfs base_slice_ns and the HRTICK feature, the cpufreq governor). Each
 * file is probed; one that is missing or refused (debugfs under lockdown,
 * no cpufreq in a VM) is reported and skipped, never fatal. Every value
 * changed is remembered so that it can be put back exactly. root prefixes
 * /sys, so tests point it at a directory that stands in for the kernel's. */
#pragma once

#include <stddef.h>

typedef struct SchedProfile SchedProfile;

typedef struct ProfileKnobState {
        char *path;             /* without the root prefix */
        char *value;            /* what it reads now ("" if unreadable) */
        char *status;           /* "ok", "changed from X", "unavailable: ...", "refused: ..." */
} ProfileKnobState;

/* "throughput, interactive, qos, default". */
const char *sched_profile_names(void);

/* Switch to profile name ("default" puts back everything changed). The
 * report says per knob what happened, one line each. Returns 0 even when
 * some knobs were refused (the report says so), -EINVAL for an unknown
 * name. *p is allocated on first use. */
int sched_profile_switch(SchedProfile **p, const char *root, const char *name, char **ret_report);

/* Put back every value changed; frees p. */
void sched_profile_restore(SchedProfile *p);

/* "default" when nothing has been changed. */
const char *sched_profile_current(const SchedProfile *p);

int sched_profile_describe(const SchedProfile *p, const char *root, ProfileKnobState **ret, size_t *ret_n);
void profile_knob_states_free(ProfileKnobState *s, size_t n);
