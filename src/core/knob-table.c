/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The knob table (knob-table.h): the lookup, helpers for the rows, and the
 * rows of the knobs that do not travel in struct sched_attr (those are in
 * knob-sched.c): ramp-up, I/O priority, timer slack and the group. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/group.h"
#include "core/knob-table.h"
#include "core/sched-syscall.h"

int knob_parse_int(const char *s, int *ret) {
        char *end;
        long long v;

        if (*s != '-' && !isdigit((unsigned char) *s))
                return -EINVAL;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < INT_MIN || v > INT_MAX)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

int knob_parse_u64(const char *s, uint64_t *ret) {
        char *end;
        unsigned long long v;

        if (!isdigit((unsigned char) *s))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno != 0 || *end != '\0')
                return -EINVAL;
        *ret = (uint64_t) v;
        return 0;
}

int knob_persist_printf(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return n < 0 || (size_t) n >= size ? -ENOBUFS : n;
}

void knob_format_ns(uint64_t ns, char *buf, size_t size) {
        if (ns >= 1000000)
                snprintf(buf, size, "%.2fms", (double) ns / 1e6);
        else
                snprintf(buf, size, "%" PRIu64 "us", ns / 1000);
}

/* ---- ramp-up: proposed upstream, no kernel interface yet ---- */

/* The knob stays in the table so that a kernel that gains it needs only a
 * probe, a read and an apply here (and a TaskAttr field). */
static void probe_rampup(KernelCaps *caps) {
        caps->supported[KNOB_RAMPUP] = false;
        caps->error[KNOB_RAMPUP] = -EOPNOTSUPP;
}

static const char *rampup_reason(const KernelCaps *caps) {
        return "no kernel interface yet";
}

static void rampup_format(const TaskAttr *a, char *buf, size_t size) {
        snprintf(buf, size, "-");
}

static const KnobRow knob_row_rampup = {
        .name = "ramp-up",
        .probe = probe_rampup,
        .reason = rampup_reason,
        .format = rampup_format,
};

/* ---- ioprio: the raw ioprio value, IOPRIO_VALUE(class, level) ---- */

static void probe_ioprio(KernelCaps *caps) {
        int r = sys_ioprio_get(gettid());
        if (r >= 0)
                r = sys_ioprio_set(gettid(), r);
        caps->supported[KNOB_IOPRIO] = r >= 0;
        caps->error[KNOB_IOPRIO] = r < 0 ? r : 0;
}

static int ioprio_read(pid_t tid, const KernelCaps *caps, TaskAttr *a) {
        int r = sys_ioprio_get(tid);
        if (r < 0)
                return r;
        a->ioprio = r;
        return 0;
}

static bool ioprio_equal(const TaskAttr *a, const TaskAttr *b) {
        return a->ioprio == b->ioprio;
}

static void ioprio_copy(TaskAttr *to, const TaskAttr *from) {
        to->ioprio = from->ioprio;
}

static int ioprio_apply(pid_t tid, const TaskAttr *cur, const TaskAttr *want) {
        return sys_ioprio_set(tid, want->ioprio);
}

static void ioprio_format_knob(const TaskAttr *a, char *buf, size_t size) {
        ioprio_format(a->ioprio, buf, size);
}

static int ioprio_persist_format(const TaskAttr *a, char *buf, size_t size) {
        return knob_persist_printf(buf, size, "%d", a->ioprio);
}

static int ioprio_persist_parse(const char *value, TaskAttr *a) {
        return knob_parse_int(value, &a->ioprio);
}

static const KnobRow knob_row_ioprio = {
        .name = "ioprio",
        .probe = probe_ioprio,
        .read = ioprio_read,
        .equal = ioprio_equal,
        .copy = ioprio_copy,
        .apply = ioprio_apply,
        .format = ioprio_format_knob,
        .persist_format = ioprio_persist_format,
        .persist_parse = ioprio_persist_parse,
};

/* ---- timer slack ---- */

static void probe_timer_slack(KernelCaps *caps) {
        uint64_t ns;
        int r = sys_timer_slack_get(gettid(), &ns);
        caps->supported[KNOB_TIMER_SLACK] = r >= 0;
        caps->error[KNOB_TIMER_SLACK] = r < 0 ? r : 0;
}

static int timer_slack_read(pid_t tid, const KernelCaps *caps, TaskAttr *a) {
        int r = sys_timer_slack_get(tid, &a->timer_slack_ns);
        if (r == -ESRCH)
                return r;
        if (r < 0)
                a->timer_slack_ns = 0; /* unreadable (another user's thread): unknown */
        return 0;
}

static bool timer_slack_equal(const TaskAttr *a, const TaskAttr *b) {
        return a->timer_slack_ns == b->timer_slack_ns;
}

static void timer_slack_copy(TaskAttr *to, const TaskAttr *from) {
        to->timer_slack_ns = from->timer_slack_ns;
}

static int timer_slack_apply(pid_t tid, const TaskAttr *cur, const TaskAttr *want) {
        return sys_timer_slack_set(tid, want->timer_slack_ns);
}

static void timer_slack_format(const TaskAttr *a, char *buf, size_t size) {
        if (a->timer_slack_ns == 0)
                snprintf(buf, size, "?");
        else
                knob_format_ns(a->timer_slack_ns, buf, size);
}

static int timer_slack_persist_format(const TaskAttr *a, char *buf, size_t size) {
        return knob_persist_printf(buf, size, "%" PRIu64, a->timer_slack_ns);
}

static int timer_slack_persist_parse(const char *value, TaskAttr *a) {
        return knob_parse_u64(value, &a->timer_slack_ns);
}

static const KnobRow knob_row_timer_slack = {
        .name = "timer-slack",
        .probe = probe_timer_slack,
        .read = timer_slack_read,
        .equal = timer_slack_equal,
        .copy = timer_slack_copy,
        .apply = timer_slack_apply,
        .format = timer_slack_format,
        .persist_format = timer_slack_persist_format,
        .persist_parse = timer_slack_persist_parse,
};

/* ---- group: the cpu cgroup the thread competes in (group.h) ---- */

/* Found from the mount table and the files (kernel_caps_probe() fills
 * caps->cgroup before the probe thread runs), and, where the kernel may
 * schedule real-time threads by group, from a try on this throwaway
 * thread: groups that would cost rtkit its grants are not used. */
static void probe_group(KernelCaps *caps) {
        CgroupCaps *cg = &caps->cgroup;
        /* Only root moves threads; v1 without budget files has no
         * real-time group scheduling, v2 never shows it. */
        if (cg->backend != CGROUP_BACKEND_NONE && caps->privileged && caps->probe_rt_groups &&
            (cg->rt_runtime || cg->backend == CGROUP_BACKEND_V2) && group_rt_probe(cg, caps->keep_probed_groups) == 0) {
                cg->backend = CGROUP_BACKEND_NONE;
                cg->missing = CGROUP_NO_RT_BUDGET;
        }
        caps->supported[KNOB_GROUP] = cg->backend != CGROUP_BACKEND_NONE;
        caps->error[KNOB_GROUP] = caps->supported[KNOB_GROUP] ? 0 : -EOPNOTSUPP;
}

static const char *group_reason(const KernelCaps *caps) {
        return cgroup_missing_to_string(caps->cgroup.missing);
}

static int group_read(pid_t tid, const KernelCaps *caps, TaskAttr *a) {
        GroupPlace place;
        if (!caps->supported[KNOB_GROUP])
                return 0;
        int r = group_locate(tid, &place, &a->group, NULL);
        if (r == -ESRCH)
                return r;
        /* Unreadable: treat as another manager's, so never moved. */
        a->group_foreign = r < 0 || place == GROUP_PLACE_FOREIGN;
        return 0;
}

static bool group_equal(const TaskAttr *a, const TaskAttr *b) {
        return a->group == b->group;
}

static void group_copy(TaskAttr *to, const TaskAttr *from) {
        to->group = from->group;
        to->group_foreign = from->group_foreign;
}

/* Into the wanted class's group, or out of qosd's groups to the root. A
 * thread in another manager's cgroup stays there (-EBUSY: that cgroup is
 * not ours to leave). The group it left goes once empty. */
static int group_apply(pid_t tid, const TaskAttr *cur, const TaskAttr *want) {
        if (cur->group_foreign)
                return -EBUSY;
        int r = group_move(tid, want->group);
        if (r >= 0 && cur->group != QCLASS_UNSPECIFIED)
                (void) group_remove_if_empty(cur->group);
        return r;
}

static void group_format(const TaskAttr *a, char *buf, size_t size) {
        if (a->group != QCLASS_UNSPECIFIED)
                snprintf(buf, size, "%s.%s", group_prefix(), qclass_to_string(a->group));
        else if (a->group_foreign)
                snprintf(buf, size, "foreign");
        else
                snprintf(buf, size, "%s", kernel_caps()->cgroup.autogroup ? "autogroup" : "root");
}

/* The class whose group it is, or "none". Whether it is in another
 * manager's cgroup is read anew, never recorded. */
static int group_persist_format(const TaskAttr *a, char *buf, size_t size) {
        return knob_persist_printf(buf, size, "%s",
                                   qclass_is_valid(a->group) ? qclass_to_string(a->group) : "none");
}

static int group_persist_parse(const char *value, TaskAttr *a) {
        if (strcmp(value, "none") == 0) {
                a->group = QCLASS_UNSPECIFIED;
                return 0;
        }
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                if (strcmp(value, qclass_to_string(c)) == 0) {
                        a->group = c;
                        return 0;
                }
        return -EINVAL;
}

static const KnobRow knob_row_group = {
        .name = "group",
        .probe = probe_group,
        .reason = group_reason,
        .read = group_read,
        .equal = group_equal,
        .copy = group_copy,
        .apply = group_apply,
        .format = group_format,
        .persist_format = group_persist_format,
        .persist_parse = group_persist_parse,
};

int knob_persist_format_attr(const TaskAttr *a, const char *prefix, char *buf, size_t size) {
        size_t len = 0;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobRow *row = knob_row(k);
                char value[KNOB_PERSIST_MAX];
                if (!row->persist_format)
                        continue;
                int r = row->persist_format(a, value, sizeof value);
                if (r >= 0)
                        r = knob_persist_printf(buf + len, size - len, " %s.%s=%s", prefix, row->name, value);
                if (r < 0)
                        return r;
                len += (size_t) r;
        }
        return (int) len;
}

int knob_persist_parse_field(const char *name, const char *value, TaskAttr *a, Knob *ret_knob) {
        int k = knob_from_string(name);
        if (k < 0 || !knob_row(k)->persist_parse)
                return -ENOENT;
        *ret_knob = k;
        return knob_row(k)->persist_parse(value, a);
}

/* Every knob, and no default: a knob added to the enum without a row here
 * is a -Wswitch warning. */
const KnobRow *knob_row(Knob k) {
        switch (k) {
        case KNOB_POLICY:
                return &knob_row_policy;
        case KNOB_NICE:
                return &knob_row_nice;
        case KNOB_SLICE:
                return &knob_row_slice;
        case KNOB_UCLAMP:
                return &knob_row_uclamp;
        case KNOB_RAMPUP:
                return &knob_row_rampup;
        case KNOB_IOPRIO:
                return &knob_row_ioprio;
        case KNOB_TIMER_SLACK:
                return &knob_row_timer_slack;
        case KNOB_GROUP:
                return &knob_row_group;
        case KNOB_CPUS:
                return &knob_row_cpus;
        case _KNOB_MAX:
                break;
        }
        return NULL;
}
