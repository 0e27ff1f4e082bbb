/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu-kinds.h"
#include "core/fileio.h"

#define PATH_MAX_LEN 512
#define CACHE_INDEXES 10
/* At or below this share of the largest capacity, a CPU is efficient:
 * big.LITTLE's little cores are at 25-45%, DynamIQ's middle ones 60-75%. */
#define EFFICIENT_CAPACITY_PCT 60

static int read_text(const char *sys, const char *rel, char *buf, size_t size) {
        char path[PATH_MAX_LEN];
        int n = snprintf(path, sizeof path, "%s/%s", sys, rel);
        if (n < 0 || (size_t) n >= sizeof path)
                return -ENAMETOOLONG;
        return read_small_file(path, buf, size, NULL);
}

static int read_mask(const char *sys, const char *rel, CpuMask *ret) {
        char buf[1024];
        int r = read_text(sys, rel, buf, sizeof buf);
        return r < 0 ? r : cpu_mask_parse(buf, ret);
}

static int read_cpu_number(const char *sys, unsigned cpu, const char *file, long *ret) {
        char rel[128], buf[32], *end;
        snprintf(rel, sizeof rel, "devices/system/cpu/cpu%u/%s", cpu, file);
        int r = read_text(sys, rel, buf, sizeof buf);
        if (r < 0)
                return r;
        long v = strtol(buf, &end, 10);
        if (end == buf)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* A level-3 cache among the CPU's caches. */
static bool has_l3(const char *sys, unsigned cpu) {
        for (unsigned i = 0; i < CACHE_INDEXES; i++) {
                char file[32];
                long level;
                snprintf(file, sizeof file, "cache/index%u/level", i);
                if (read_cpu_number(sys, cpu, file, &level) >= 0 && level == 3)
                        return true;
        }
        return false;
}

static bool read_intel_hybrid(const char *sys, CpuKinds *k) {
        CpuMask core, atom;
        if (read_mask(sys, "devices/cpu_core/cpus", &core) < 0 || read_mask(sys, "devices/cpu_atom/cpus", &atom) < 0 ||
            cpu_mask_is_empty(&core) || cpu_mask_is_empty(&atom))
                return false;
        k->performance = cpu_mask_and(&core, &k->present);
        k->efficient = cpu_mask_and(&atom, &k->present);
        /* Only where the P-cores have an L3 can its absence tell. */
        bool l3_known = false;
        for (unsigned c = 0; c < CPU_MASK_MAX && !l3_known; c++)
                l3_known = cpu_mask_test(&k->performance, c) && has_l3(sys, c);
        for (unsigned c = 0; c < CPU_MASK_MAX && l3_known; c++)
                if (cpu_mask_test(&k->efficient, c) && !has_l3(sys, c))
                        cpu_mask_set(&k->low_power, c);
        k->source = CPU_KINDS_INTEL_HYBRID;
        snprintf(k->why, sizeof k->why, "Intel hybrid: /sys/devices/cpu_core/cpus and cpu_atom/cpus%s",
                 cpu_mask_is_empty(&k->low_power) ? "" : "; E-cores without an L3 cache are low-power");
        return true;
}

static bool read_capacity(const char *sys, CpuKinds *k) {
        long capacity[CPU_MASK_MAX], largest = 0;
        for (unsigned c = 0; c < CPU_MASK_MAX; c++) {
                capacity[c] = -1;
                if (cpu_mask_test(&k->present, c) && read_cpu_number(sys, c, "cpu_capacity", &capacity[c]) >= 0 &&
                    capacity[c] > largest)
                        largest = capacity[c];
        }
        if (largest <= 0)
                return false;
        for (unsigned c = 0; c < CPU_MASK_MAX; c++) {
                if (capacity[c] < 0)
                        continue;
                if (capacity[c] * 100 <= largest * EFFICIENT_CAPACITY_PCT)
                        cpu_mask_set(&k->efficient, c);
                else
                        cpu_mask_set(&k->performance, c);
        }
        if (cpu_mask_is_empty(&k->efficient))
                return false;
        k->source = CPU_KINDS_CAPACITY;
        snprintf(k->why, sizeof k->why, "cpu_capacity: %d%% of the largest (%ld) or less is efficient",
                 EFFICIENT_CAPACITY_PCT, largest);
        return true;
}

static void one_kind(CpuKinds *k) {
        k->performance = k->present;
        k->efficient = k->low_power = (CpuMask) {};
        k->source = CPU_KINDS_ONE_KIND;
        snprintf(k->why, sizeof k->why, "one kind of CPU: the kernel tells none apart");
}

int cpu_kinds_read(const char *sys, CpuKinds *ret) {
        CpuKinds k = {};
        int r = read_mask(sys, "devices/system/cpu/present", &k.present);
        if (r < 0)
                r = read_mask(sys, "devices/system/cpu/possible", &k.present);
        if (r < 0) {
                *ret = k;
                one_kind(ret);
                return r;
        }
        if (!read_intel_hybrid(sys, &k)) {
                k.performance = k.efficient = k.low_power = (CpuMask) {};
                if (!read_capacity(sys, &k))
                        one_kind(&k);
        }
        *ret = k;
        return 0;
}

int cpu_kinds_override(CpuKinds *k, const char *efficient, const char *performance, const char **bad) {
        CpuMask e = {}, p = {};
        if (!efficient && !performance)
                return 0;
        if (efficient && (cpu_mask_parse(efficient, &e) < 0 || cpu_mask_is_empty(&e))) {
                *bad = "EfficientCPUs";
                return -EINVAL;
        }
        if (performance && (cpu_mask_parse(performance, &p) < 0 || cpu_mask_is_empty(&p))) {
                *bad = "PerformanceCPUs";
                return -EINVAL;
        }
        /* Only the CPUs this machine has: a list for another machine (a
         * copied qosd.conf) names none, and is refused below. */
        e = cpu_mask_and(&e, &k->present);
        p = cpu_mask_and(&p, &k->present);
        if (!efficient)
                e = cpu_mask_minus(&k->present, &p);
        if (!performance)
                p = cpu_mask_minus(&k->present, &e);
        CpuMask both = cpu_mask_and(&e, &p);
        if (!cpu_mask_is_empty(&both) || cpu_mask_is_empty(&e) || cpu_mask_is_empty(&p)) {
                *bad = efficient ? "EfficientCPUs" : "PerformanceCPUs";
                return -EINVAL;
        }
        k->efficient = e;
        k->performance = p;
        k->low_power = cpu_mask_and(&k->low_power, &e);
        k->source = CPU_KINDS_SETTINGS;
        snprintf(k->why, sizeof k->why, "qosd.conf: %s%s%s", efficient ? "EfficientCPUs=" : "",
                 efficient && performance ? ", " : "", performance ? "PerformanceCPUs=" : "");
        return 0;
}

bool cpu_kinds_hybrid(const CpuKinds *k) {
        return !cpu_mask_is_empty(&k->efficient) && !cpu_mask_is_empty(&k->performance);
}

const char *cpu_kinds_describe(const CpuKinds *k, char *buf, size_t size) {
        char p[128], e[128], lp[128];
        if (!cpu_kinds_hybrid(k)) {
                snprintf(buf, size, "all %s alike", cpu_mask_format(&k->present, p, sizeof p));
                return buf;
        }
        cpu_mask_format(&k->performance, p, sizeof p);
        cpu_mask_format(&k->efficient, e, sizeof e);
        if (cpu_mask_is_empty(&k->low_power))
                snprintf(buf, size, "performance %s, efficient %s", p, e);
        else
                snprintf(buf, size, "performance %s, efficient %s (low-power %s)", p, e,
                         cpu_mask_format(&k->low_power, lp, sizeof lp));
        return buf;
}
