/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cpus knob: where a thread may run. Background goes to the efficient
 * CPUs of a hybrid machine, the other classes keep every CPU they had; the
 * mask qosd sets is always within the thread's own (task_attr_place()). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel-caps.h"
#include "core/knob-table.h"
#include "core/macro.h"
#include "core/sched-syscall.h"
#include "core/task-attr.h"

static void probe_cpus(KernelCaps *caps) {
        CpuMask mine;
        long configured = sysconf(_SC_NPROCESSORS_CONF);
        bool ok = caps->cpu_kinds_known && cpu_kinds_hybrid(&caps->cpu_kinds) && configured > 0 &&
                  configured <= CPU_MASK_MAX && sys_affinity_get(0, &mine) == 0;
        caps->supported[KNOB_CPUS] = ok;
        caps->error[KNOB_CPUS] = ok ? 0 : -EOPNOTSUPP;
}

static const char *cpus_reason(const KernelCaps *caps) {
        if (!caps->cpu_kinds_known)
                return "qosd places threads on CPUs, this program does not";
        if (!cpu_kinds_hybrid(&caps->cpu_kinds))
                return "one kind of CPU here: nowhere cheaper to put background (EfficientCPUs= in qosd.conf)";
        return "more CPUs than qosd places (256)";
}

static int cpus_read(pid_t tid, const KernelCaps *caps, TaskAttr *a) {
        int r = sys_affinity_get(tid, &a->cpus);
        if (r == -ESRCH)
                return r;
        if (r < 0)
                a->cpus = (CpuMask) {}; /* unreadable: unknown, never changed */
        return 0;
}

/* An empty mask (unknown, or not to be changed) is equal to any. */
static bool cpus_equal(const TaskAttr *a, const TaskAttr *b) {
        return cpu_mask_is_empty(&a->cpus) || cpu_mask_is_empty(&b->cpus) || cpu_mask_equal(&a->cpus, &b->cpus);
}

static void cpus_copy(TaskAttr *to, const TaskAttr *from) {
        to->cpus = from->cpus;
}

static int cpus_apply(pid_t tid, const TaskAttr *cur, const TaskAttr *want) {
        return cpu_mask_is_empty(&want->cpus) ? 0 : sys_affinity_set(tid, &want->cpus);
}

static void cpus_format(const TaskAttr *a, char *buf, size_t size) {
        if (cpu_mask_is_empty(&a->cpus))
                snprintf(buf, size, "?");
        else
                cpu_mask_format(&a->cpus, buf, size);
}

/* A list ("0-3,8"), or where that is too long (every other CPU of
 * many) the words in hex, highest first: "x" and 64 digits at most. */
static int cpus_persist_format(const TaskAttr *a, char *buf, size_t size) {
        char list[KNOB_PERSIST_MAX];
        if (cpu_mask_is_empty(&a->cpus))
                return knob_persist_printf(buf, size, "none");
        cpu_mask_format(&a->cpus, list, sizeof list);
        if (!strstr(list, "..."))
                return knob_persist_printf(buf, size, "%s", list);
        return knob_persist_printf(buf, size, "x%016" PRIx64 "%016" PRIx64 "%016" PRIx64 "%016" PRIx64,
                                   a->cpus.w[3], a->cpus.w[2], a->cpus.w[1], a->cpus.w[0]);
}

static int parse_hex_words(const char *hex, CpuMask *ret) {
        CpuMask m = {};
        size_t n = strlen(hex);
        if (n != 64 || strspn(hex, "0123456789abcdef") != n)
                return -EINVAL;
        for (size_t i = 0; i < 4; i++) {
                char word[17];
                memcpy(word, hex + i * 16, 16);
                word[16] = '\0';
                m.w[3 - i] = strtoull(word, NULL, 16);
        }
        *ret = m;
        return 0;
}

static int cpus_persist_parse(const char *value, TaskAttr *a) {
        CpuMask m;
        if (strcmp(value, "none") == 0) {
                a->cpus = (CpuMask) {};
                return 0;
        }
        /* As written: no blank anywhere. */
        if (!*value || strpbrk(value, " \t\n"))
                return -EINVAL;
        int r = value[0] == 'x' ? parse_hex_words(value + 1, &m) : cpu_mask_parse(value, &m);
        if (r < 0 || cpu_mask_is_empty(&m))
                return -EINVAL;
        a->cpus = m;
        return 0;
}

const KnobRow knob_row_cpus = {
        .name = "cpus",
        .probe = probe_cpus,
        .reason = cpus_reason,
        .read = cpus_read,
        .equal = cpus_equal,
        .copy = cpus_copy,
        .apply = cpus_apply,
        .format = cpus_format,
        .persist_format = cpus_persist_format,
        .persist_parse = cpus_persist_parse,
};

void task_attr_place(TaskAttr *want, const TaskAttr *orig, const KernelCaps *caps, bool *ret_none_efficient) {
        if (ret_none_efficient)
                *ret_none_efficient = false;
        if (cpu_mask_is_empty(&want->cpus))
                return;
        if (cpu_mask_is_empty(&orig->cpus) || cpu_mask_equal(&want->cpus, &caps->cpu_kinds.present)) {
                want->cpus = orig->cpus;
                return;
        }
        CpuMask both = cpu_mask_and(&orig->cpus, &want->cpus);
        if (cpu_mask_is_empty(&both) && ret_none_efficient)
                *ret_none_efficient = true;
        want->cpus = cpu_mask_is_empty(&both) ? orig->cpus : both;
}
