/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rows of the knobs that travel in struct sched_attr: policy, nice,
 * slice and uclamp. One sched_getattr reads them all; task-apply.c sets
 * policy, nice and slice together (apply NULL), uclamp on its own. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/knob-table.h"
#include "core/sched-syscall.h"

/* ---- policy (and reset-on-fork, which travels with it) ---- */

static void policy_from_sched(const struct qos_sched_attr *sa, const KernelCaps *caps, TaskAttr *a) {
        a->policy = (int) sa->sched_policy;
        a->reset_on_fork = sa->sched_flags & SCHED_FLAG_RESET_ON_FORK;
}

static bool policy_equal(const TaskAttr *a, const TaskAttr *b) {
        return a->policy == b->policy;
}

static void policy_format(const TaskAttr *a, char *buf, size_t size) {
        snprintf(buf, size, "%s", sched_policy_to_string(a->policy));
}

/* The number, with "|reset-on-fork" as chrt writes the flag beside it. */
#define ROF_SUFFIX "|reset-on-fork"

static int policy_persist_format(const TaskAttr *a, char *buf, size_t size) {
        return knob_persist_printf(buf, size, "%d%s", a->policy, a->reset_on_fork ? ROF_SUFFIX : "");
}

static int policy_persist_parse(const char *value, TaskAttr *a) {
        char num[16];
        const char *bar = strchr(value, '|');
        size_t len = bar ? (size_t) (bar - value) : strlen(value);
        if (len >= sizeof num || (bar && strcmp(bar, ROF_SUFFIX) != 0))
                return -EINVAL;
        memcpy(num, value, len);
        num[len] = '\0';
        int r = knob_parse_int(num, &a->policy);
        if (r < 0)
                return r;
        a->reset_on_fork = bar != NULL;
        return 0;
}

static void probe_policy(KernelCaps *caps) {
        caps->supported[KNOB_POLICY] = true;
}

const KnobRow knob_row_policy = {
        .name = "policy",
        .probe = probe_policy,
        .from_sched = policy_from_sched,
        .equal = policy_equal,
        .format = policy_format,
        .persist_format = policy_persist_format,
        .persist_parse = policy_persist_parse,
};

/* ---- nice ---- */

static void nice_from_sched(const struct qos_sched_attr *sa, const KernelCaps *caps, TaskAttr *a) {
        a->nice = sa->sched_nice;
}

static bool nice_equal(const TaskAttr *a, const TaskAttr *b) {
        /* nice means nothing to the kernel under SCHED_IDLE, but it is kept
         * and comes back into force if the policy changes: compare it too. */
        return a->nice == b->nice;
}

static void nice_format(const TaskAttr *a, char *buf, size_t size) {
        snprintf(buf, size, "%d", a->nice);
}

static int nice_persist_format(const TaskAttr *a, char *buf, size_t size) {
        return knob_persist_printf(buf, size, "%d", a->nice);
}

static int nice_persist_parse(const char *value, TaskAttr *a) {
        return knob_parse_int(value, &a->nice);
}

static void probe_nice(KernelCaps *caps) {
        caps->supported[KNOB_NICE] = true;
}

const KnobRow knob_row_nice = {
        .name = "nice",
        .probe = probe_nice,
        .from_sched = nice_from_sched,
        .equal = nice_equal,
        .format = nice_format,
        .persist_format = nice_persist_format,
        .persist_parse = nice_persist_parse,
};

/* ---- slice: EEVDF custom slice, sched_attr.sched_runtime (6.12+) ---- */

/* Far from any default and inside the kernel's 0.1-100 ms clamp. */
#define PROBE_SLICE_NS 3141000ull

static int set_and_read_back(pid_t tid, const struct qos_sched_attr *a, struct qos_sched_attr *back) {
        int r = sys_sched_setattr(tid, a);
        return r < 0 ? r : sys_sched_getattr(tid, back);
}

/* kthreadd never has a custom slice, and any caller may read its attributes:
 * on 6.12+ sched_getattr reports its slice, which is the default; older
 * kernels, which have no custom slices, report 0 there. -ESRCH where PID 2
 * is not kthreadd (a PID namespace). */
static int kthreadd_slice(uint64_t *ret) {
        struct qos_sched_attr a;
        char comm[32] = "";
        FILE *f = fopen("/proc/2/comm", "re");
        if (f) {
                if (!fgets(comm, sizeof comm, f))
                        comm[0] = '\0';
                fclose(f);
        }
        if (strcmp(comm, "kthreadd\n") != 0 || sys_sched_getattr(2, &a) < 0)
                return -ESRCH;
        *ret = a.sched_runtime;
        return 0;
}

/* Try a slice on the probe thread and read it back. SCHED_IDLE ignores
 * sched_runtime, so an idle probe thread first moves to SCHED_BATCH, which
 * needs privilege; without it the answer comes from kthreadd. */
static void probe_slice(KernelCaps *caps) {
        struct qos_sched_attr cur, a, back;
        pid_t self = gettid();
        int r;

        /* Read-only where kthreadd answers with a slice (6.12+): a probe
         * thread of a program qosd manages is one of its threads, and a
         * passing 3.141 ms slice on it would read as someone else's change. */
        if (kthreadd_slice(&caps->default_slice_ns) >= 0 && caps->default_slice_ns > 0) {
                caps->supported[KNOB_SLICE] = true;
                return;
        }
        r = sys_sched_getattr(self, &cur);
        if (r < 0)
                goto unsupported;
        if (cur.sched_policy != SCHED_OTHER && cur.sched_policy != SCHED_BATCH) {
                a = (struct qos_sched_attr) { .sched_policy = SCHED_BATCH, .sched_nice = cur.sched_nice };
                r = sys_sched_setattr(self, &a);
                if (r == -EPERM) {
                        /* Only a kernel without custom slices reports none
                         * for kthreadd (6.1 must not read as "needs privilege"). */
                        r = kthreadd_slice(&caps->default_slice_ns);
                        if (r < 0)
                                r = -EPERM;
                        else if (caps->default_slice_ns == 0)
                                r = -EOPNOTSUPP;
                        caps->supported[KNOB_SLICE] = r >= 0;
                        caps->error[KNOB_SLICE] = r < 0 ? r : 0;
                        return;
                }
                if (r < 0)
                        goto unsupported;
                cur.sched_policy = SCHED_BATCH;
        }
        a = (struct qos_sched_attr) {
                .sched_policy = cur.sched_policy,
                .sched_nice = cur.sched_nice,
                .sched_flags = cur.sched_flags & SCHED_FLAG_RESET_ON_FORK,
                .sched_runtime = PROBE_SLICE_NS,
        };
        r = set_and_read_back(self, &a, &back);
        if (r < 0)
                goto unsupported;
        /* 6.1 (CFS) accepts sched_runtime and reads back 0: not supported. */
        if (back.sched_runtime != PROBE_SLICE_NS) {
                r = -EOPNOTSUPP;
                goto unsupported;
        }
        a.sched_runtime = 0;
        r = set_and_read_back(self, &a, &back);
        if (r < 0)
                goto unsupported;
        caps->supported[KNOB_SLICE] = true;
        caps->default_slice_ns = back.sched_runtime;
        return;

unsupported:
        caps->supported[KNOB_SLICE] = false;
        caps->error[KNOB_SLICE] = r;
}

static const char *slice_reason(const KernelCaps *caps) {
        if (caps->error[KNOB_SLICE] == -EOPNOTSUPP)
                return "kernel ignores sched_runtime (no EEVDF custom slices)";
        return NULL; /* what the errno says */
}

static void slice_from_sched(const struct qos_sched_attr *sa, const KernelCaps *caps, TaskAttr *a) {
        /* 6.12+ reports the slice in sched_runtime whether custom or not; a
         * slice equal to the default is the default. Older kernels report 0. */
        if (caps->supported[KNOB_SLICE] && sa->sched_runtime != caps->default_slice_ns)
                a->slice_ns = sa->sched_runtime;
}

static bool slice_equal(const TaskAttr *a, const TaskAttr *b) {
        return a->slice_ns == b->slice_ns;
}

static void slice_format(const TaskAttr *a, char *buf, size_t size) {
        if (a->slice_ns == 0)
                snprintf(buf, size, "default");
        else
                knob_format_ns(a->slice_ns, buf, size);
}

static int slice_persist_format(const TaskAttr *a, char *buf, size_t size) {
        return knob_persist_printf(buf, size, "%" PRIu64, a->slice_ns);
}

static int slice_persist_parse(const char *value, TaskAttr *a) {
        return knob_parse_u64(value, &a->slice_ns);
}

const KnobRow knob_row_slice = {
        .name = "slice",
        .probe = probe_slice,
        .reason = slice_reason,
        .from_sched = slice_from_sched,
        .equal = slice_equal,
        .format = slice_format,
        .persist_format = slice_persist_format,
        .persist_parse = slice_persist_parse,
};

/* ---- uclamp: utilisation clamps (CONFIG_UCLAMP_TASK) ---- */

static void probe_uclamp(KernelCaps *caps) {
        struct qos_sched_attr cur, a;
        pid_t self = gettid();
        int r;

        r = sys_sched_getattr(self, &cur);
        if (r >= 0) {
                /* The kernel checks priority and nice even when told to
                 * keep them: a real-time thread given priority 0 gets
                 * EINVAL, which would read as "no uclamp", and a niced
                 * unprivileged one given nice 0 gets EPERM. */
                a = (struct qos_sched_attr) {
                        .sched_policy = cur.sched_policy,
                        .sched_nice = cur.sched_nice,
                        .sched_priority = cur.sched_priority,
                        .sched_flags = SCHED_FLAG_KEEP_ALL_ | SCHED_FLAG_UTIL_CLAMP_MIN |
                                       SCHED_FLAG_UTIL_CLAMP_MAX,
                        .sched_util_min = cur.sched_util_min,
                        .sched_util_max = cur.sched_util_max ?: 1024,
                };
                r = sys_sched_setattr(self, &a);
        }
        /* EPERM means the kernel has clamps but this caller may not set
         * them; only EOPNOTSUPP/EINVAL mean the kernel lacks them. */
        caps->supported[KNOB_UCLAMP] = r >= 0 || r == -EPERM;
        caps->error[KNOB_UCLAMP] = r < 0 ? r : 0;
}

static void uclamp_from_sched(const struct qos_sched_attr *sa, const KernelCaps *caps, TaskAttr *a) {
        if (caps->supported[KNOB_UCLAMP]) {
                a->uclamp_min = (int) sa->sched_util_min;
                a->uclamp_max = (int) sa->sched_util_max;
        }
}

static bool uclamp_equal(const TaskAttr *a, const TaskAttr *b) {
        return a->uclamp_min == b->uclamp_min && a->uclamp_max == b->uclamp_max;
}

static int uclamp_apply(pid_t tid, const TaskAttr *cur, const TaskAttr *want) {
        struct qos_sched_attr a = {
                .sched_policy = (uint32_t) cur->policy,
                .sched_flags = SCHED_FLAG_KEEP_ALL_ | SCHED_FLAG_UTIL_CLAMP_MIN |
                               SCHED_FLAG_UTIL_CLAMP_MAX,
                .sched_util_min = (uint32_t) want->uclamp_min,
                .sched_util_max = (uint32_t) want->uclamp_max,
        };
        return sys_sched_setattr(tid, &a);
}

static void uclamp_format(const TaskAttr *a, char *buf, size_t size) {
        snprintf(buf, size, "%d..%d", a->uclamp_min, a->uclamp_max);
}

static int uclamp_persist_format(const TaskAttr *a, char *buf, size_t size) {
        return knob_persist_printf(buf, size, "%d..%d", a->uclamp_min, a->uclamp_max);
}

static int uclamp_persist_parse(const char *value, TaskAttr *a) {
        char min[16];
        const char *dots = strstr(value, "..");
        if (!dots || (size_t) (dots - value) >= sizeof min)
                return -EINVAL;
        memcpy(min, value, (size_t) (dots - value));
        min[dots - value] = '\0';
        int r = knob_parse_int(min, &a->uclamp_min);
        return r < 0 ? r : knob_parse_int(dots + 2, &a->uclamp_max);
}

const KnobRow knob_row_uclamp = {
        .name = "uclamp",
        .probe = probe_uclamp,
        .from_sched = uclamp_from_sched,
        .equal = uclamp_equal,
        .apply = uclamp_apply,
        .format = uclamp_format,
        .persist_format = uclamp_persist_format,
        .persist_parse = uclamp_persist_parse,
};
