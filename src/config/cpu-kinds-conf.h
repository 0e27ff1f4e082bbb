/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kinds of CPU qosd uses: the kernel's word from the sysfs tree at
 * sys, or EfficientCPUs=/PerformanceCPUs= of the settings. */
#pragma once

#include "config/qosd-conf.h"
#include "core/cpu-kinds.h"

/* Always fills ret. -EINVAL, with *bad the key, when the settings' lists
 * name no CPU of this machine or overlap: the kernel's word stands. */
int cpu_kinds_from_settings(const char *sys, const Settings *s, CpuKinds *ret, const char **bad);

/* For qosctl, as qosd finds them: the settings file under root (NULL:
 * /) and the tree at sys; a refused list is said in note, else note is
 * "". */
void cpu_kinds_for_root(const char *root, const char *sys, CpuKinds *ret, char *note, size_t size);
