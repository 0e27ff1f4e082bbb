/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A set of CPUs, as the kernel writes them in sysfs and as people do in
 * qosd.conf: "0-3,8-11". Fixed size (CPU_MASK_MAX), so that it is a plain
 * value; a machine with more CPUs is told so where it is read. Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPU_MASK_MAX 256

typedef struct CpuMask {
        uint64_t w[CPU_MASK_MAX / 64];
} CpuMask;

/* "0-3,8", blanks and a final newline allowed; "" is the empty set.
 * -EINVAL for anything else, -ERANGE for a CPU >= CPU_MASK_MAX. */
int cpu_mask_parse(const char *list, CpuMask *ret);

/* The shortest list ("0-3,8"), or "none"; cut short with "..." if size
 * is too small. CPU_MASK_LIST_MAX holds any mask whole (the longest,
 * "0-1,3-4,...", is under 700 characters). */
#define CPU_MASK_LIST_MAX 1024
const char *cpu_mask_format(const CpuMask *m, char *buf, size_t size);

void cpu_mask_set(CpuMask *m, unsigned cpu);
bool cpu_mask_test(const CpuMask *m, unsigned cpu);
unsigned cpu_mask_count(const CpuMask *m);
bool cpu_mask_is_empty(const CpuMask *m);
bool cpu_mask_equal(const CpuMask *a, const CpuMask *b);
/* a ∩ b, a \ b. */
CpuMask cpu_mask_and(const CpuMask *a, const CpuMask *b);
CpuMask cpu_mask_minus(const CpuMask *a, const CpuMask *b);
