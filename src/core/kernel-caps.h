/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which knobs this kernel has, probed once by trying them on a throwaway
 * thread and reading the result back (a kernel may accept a value and
 * ignore it, as 6.1 does with sched_runtime). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/cgroup-probe.h"
#include "core/cpu-kinds.h"
#include "core/knob.h"

typedef struct KernelCaps {
        bool supported[_KNOB_MAX];
        int error[_KNOB_MAX];           /* why a knob is unsupported (negative errno) */
        uint64_t default_slice_ns;      /* what a thread without a custom slice has; 0 if unknown */
        bool privileged;                /* CAP_SYS_NICE: may raise priority and touch others' threads */
        bool probe_rt_groups;           /* try real-time in qosd's groups (kernel_caps_probe_rt_groups()) */
        bool keep_probed_groups;        /* and keep the groups made for it */
        CgroupCaps cgroup;              /* where KNOB_GROUP's groups live, and autogroup */
        bool cpu_kinds_known;           /* kernel_caps_use_cpu_kinds() was called */
        CpuKinds cpu_kinds;             /* which CPUs are efficient: KNOB_CPUS's */
} KernelCaps;

/* Before the first kernel_caps(): also find out whether qosd's groups can
 * hold real-time threads (group_rt_probe()), and leave them off if not.
 * For qosd, which moves threads into them, and qosctl classes, which says
 * what qosd finds: the probe makes the groups and makes a thread
 * real-time for a moment, as root. keep_groups: leave the groups it made
 * (qosd would make them again at once). */
void kernel_caps_probe_rt_groups(bool keep_groups);

/* Before the first kernel_caps(): the kinds of CPU (the kernel's word, or
 * qosd.conf's), so that background may be placed on the efficient ones
 * (KNOB_CPUS). Without it, as in libqos and the preload, placement is not
 * theirs to do: the knob is unsupported. */
void kernel_caps_use_cpu_kinds(const CpuKinds *k);

/* Probed on first use, thread-safe, never fails (a failed probe marks the
 * knob unsupported with its error). */
const KernelCaps *kernel_caps(void);

/* One-line reason for an unsupported knob, e.g. "not built into this kernel". */
const char *kernel_caps_reason(const KernelCaps *caps, Knob k);

/* Fill caps by probing (used by kernel_caps() and by tests). */
void kernel_caps_probe(KernelCaps *caps);
