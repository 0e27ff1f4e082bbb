/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which CPUs are fast and which are frugal, from what the kernel says:
 *
 *  - Intel hybrid (Alder Lake and later): the PMU devices list their CPUs,
 *    /sys/devices/cpu_core/cpus (P-cores) and /sys/devices/cpu_atom/cpus
 *    (E-cores). Meteor Lake's low-power E-cores sit outside the compute
 *    tile and its L3 cache: an E-core with no level-3 cache is one.
 *  - Arm big.LITTLE and DynamIQ: cpu_capacity per CPU (1024 for the
 *    fastest); a CPU at 60% of the largest or less is an efficient one.
 *  - Neither: one kind of CPU, unless qosd.conf names them
 *    (EfficientCPUs=, PerformanceCPUs=; cpu_kinds_override()).
 *
 * Reads a sysfs tree (/sys, or a copy of another machine's for tests). */
#pragma once

#include "core/cpu-mask.h"

typedef enum CpuKindsSource {
        CPU_KINDS_ONE_KIND,     /* the kernel tells no kinds apart */
        CPU_KINDS_INTEL_HYBRID,
        CPU_KINDS_CAPACITY,
        CPU_KINDS_SETTINGS,     /* qosd.conf */
} CpuKindsSource;

typedef struct CpuKinds {
        CpuMask present;        /* every CPU the kernel has */
        CpuMask performance;
        CpuMask efficient;      /* the CPUs background may be confined to */
        CpuMask low_power;      /* of the efficient ones, those also outside the L3 (Meteor Lake's LP E-cores) */
        CpuKindsSource source;
        char why[192];          /* where it came from, for qosctl classes and the log */
} CpuKinds;

/* Read the kinds from the sysfs tree at sys ("/sys"). Always fills ret
 * (one kind of CPU if nothing says more); -errno only if not even the
 * present CPUs can be read. */
int cpu_kinds_read(const char *sys, CpuKinds *ret);

/* qosd.conf's word over the kernel's: efficient and performance are CPU
 * lists or NULL. Only efficient given: the others are performance; only
 * performance: the others are efficient. -EINVAL (with *bad the key) for
 * a list that does not parse, names no present CPU, or where the two
 * overlap. */
int cpu_kinds_override(CpuKinds *k, const char *efficient, const char *performance, const char **bad);

/* Whether background has somewhere to go: some CPUs are efficient, and
 * some are not. */
bool cpu_kinds_hybrid(const CpuKinds *k);

/* "performance 0-7, efficient 8-15" (and "(low-power 20-21)"). */
const char *cpu_kinds_describe(const CpuKinds *k, char *buf, size_t size);
