/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Put every thread of the given processes into one role of one benchmark
 * variant:
 *
 *   qos-bench-apply VARIANT ROLE PID...
 *   qos-bench-apply --list
 *   qos-bench-apply --cleanup      remove the emptied groups of +groups variants
 *
 * A variant says, per role, what a tool would do to such a thread: qosd's
 * variants name a class of the one class table (applied exactly as qosctl
 * and qosd apply it); the other tools' tables are written here as explicit
 * attributes, applied by the same core call. Nothing here talks to the
 * kernel directly. Exit 77 when a variant needs something this build
 * lacks (the runner then skips it).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/class-table.h"
#include "core/group.h"
#include "core/kernel-caps.h"
#include "core/macro.h"
#include "core/proc.h"
#include "core/qclass.h"
#include "core/task-apply.h"

typedef enum Role {
        ROLE_PROBE,             /* the frame/audio thread: user-interactive */
        ROLE_INITIATED,         /* the worker pool the user waits for */
        ROLE_UNTAGGED,          /* load nobody tagged: utility, the default */
        ROLE_BACKGROUND,        /* load tagged background */
        _ROLE_MAX,
} Role;

static const char *const role_names[_ROLE_MAX] = {
        [ROLE_PROBE] = "probe",
        [ROLE_INITIATED] = "initiated",
        [ROLE_UNTAGGED] = "untagged",
        [ROLE_BACKGROUND] = "background",
};

typedef struct Setting {
        enum { SET_KEEP, SET_CLASS, SET_ATTR } how;
        QClass class;
        TaskAttr attr;
        unsigned mask;
} Setting;

typedef struct Variant {
        const char *name;
        const char *what;
        bool groups;            /* also the group layer's per-class cgroups */
        Setting role[_ROLE_MAX];
} Variant;

#define MS(x) ((uint64_t) ((x) * 1000000.0))
#define SCHED_MASK (KNOB_BIT(KNOB_POLICY) | KNOB_BIT(KNOB_NICE) | KNOB_BIT(KNOB_SLICE))
#define CLASS(c) { .how = SET_CLASS, .class = (c) }
#define SCHED(pol, n, slice_ms) \
        { .how = SET_ATTR, .attr = { .policy = (pol), .nice = (n), .slice_ns = MS(slice_ms) }, .mask = SCHED_MASK }
#define NICE(n) { .how = SET_ATTR, .attr = { .nice = (n) }, .mask = KNOB_BIT(KNOB_NICE) }
#define POLICY(pol) { .how = SET_ATTR, .attr = { .policy = (pol) }, .mask = KNOB_BIT(KNOB_POLICY) }
/* qosd's classes for every role, with background as given. */
#define QOSD_ROLES_BG(bg) \
        [ROLE_PROBE] = CLASS(QCLASS_USER_INTERACTIVE), [ROLE_INITIATED] = CLASS(QCLASS_USER_INITIATED), \
        [ROLE_UNTAGGED] = CLASS(QCLASS_UTILITY), [ROLE_BACKGROUND] = bg
#define QOSD_ROLES QOSD_ROLES_BG(CLASS(QCLASS_BACKGROUND))

static const Variant variants[] = {
        { .name = "untouched", .what = "everything at the kernel's defaults" },
        { .name = "qosd", .what = "qosd's class table, per thread", .role = { QOSD_ROLES } },
        { .name = "qosd+groups", .what = "qosd's class table and its per-class cgroups", .groups = true,
          .role = { QOSD_ROLES } },
        /* schedqos's published table; everything untagged is its utility. */
        { .name = "schedqos", .what = "schedqos's table",
          .role = {
                  [ROLE_PROBE] = SCHED(SCHED_OTHER, -4, 8),
                  [ROLE_INITIATED] = SCHED(SCHED_OTHER, -2, 12),
                  [ROLE_UNTAGGED] = SCHED(SCHED_BATCH, 2, 16),
                  [ROLE_BACKGROUND] = SCHED(SCHED_BATCH, 4, 20),
          } },
        { .name = "nice-only", .what = "ananicy-style: background nice 19", .role = { [ROLE_BACKGROUND] = NICE(19) } },
        { .name = "idle-only", .what = "background SCHED_IDLE, nothing else", .role = { [ROLE_BACKGROUND] = POLICY(SCHED_IDLE) } },

        /* Tuning the background class: qosd's other classes, background
         * varied ("qosd" itself is IDLE nice 19 with an 8 ms slice). */
        { .name = "bg:normal-19-8ms", .what = "background NORMAL nice 19, 8 ms slice",
          .role = { QOSD_ROLES_BG(SCHED(SCHED_OTHER, 19, 8)) } },
        { .name = "bg:batch-19-8ms", .what = "background BATCH nice 19, 8 ms slice",
          .role = { QOSD_ROLES_BG(SCHED(SCHED_BATCH, 19, 8)) } },
        { .name = "bg:idle", .what = "background IDLE, default slice",
          .role = { QOSD_ROLES_BG(SCHED(SCHED_IDLE, 19, 0)) } },
        { .name = "bg:idle-30ms", .what = "background IDLE, 30 ms slice",
          .role = { QOSD_ROLES_BG(SCHED(SCHED_IDLE, 19, 30)) } },

        /* Tuning user-interactive against untagged load: the table's
         * earlier value and its neighbours. */
        { .name = "ui:nice-10-0.5ms", .what = "probe nice -10, 0.5 ms slice (the first table)",
          .role = { [ROLE_PROBE] = SCHED(SCHED_OTHER, -10, 0.5) } },
        { .name = "ui:nice-10-3ms", .what = "probe nice -10, 3 ms slice",
          .role = { [ROLE_PROBE] = SCHED(SCHED_OTHER, -10, 3) } },
        { .name = "ui:nice-15-3ms", .what = "probe nice -15, 3 ms slice",
          .role = { [ROLE_PROBE] = SCHED(SCHED_OTHER, -15, 3) } },
        { .name = "ui:nice-20-0.5ms", .what = "probe nice -20, 0.5 ms slice",
          .role = { [ROLE_PROBE] = SCHED(SCHED_OTHER, -20, 0.5) } },
};

static const Variant *variant_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(variants); i++)
                if (strcmp(variants[i].name, name) == 0)
                        return &variants[i];
        return NULL;
}

static int role_from_string(const char *s) {
        for (int r = 0; r < _ROLE_MAX; r++)
                if (strcmp(role_names[r], s) == 0)
                        return r;
        return -EINVAL;
}

static const char *setting_format(const Setting *s, char *buf, size_t size) {
        char a[32], b[32], c[32];

        switch (s->how) {
        case SET_KEEP:
                return "-";
        case SET_CLASS:
                return qclass_to_string(s->class);
        case SET_ATTR:
        default:
                snprintf(buf, size, "%s%s%s%s%s%s",
                         s->mask & KNOB_BIT(KNOB_POLICY) ? task_attr_format_knob(&s->attr, KNOB_POLICY, a, sizeof a) : "",
                         s->mask & KNOB_BIT(KNOB_POLICY) && s->mask & KNOB_BIT(KNOB_NICE) ? " " : "",
                         s->mask & KNOB_BIT(KNOB_NICE) ? "nice " : "",
                         s->mask & KNOB_BIT(KNOB_NICE) ? task_attr_format_knob(&s->attr, KNOB_NICE, b, sizeof b) : "",
                         s->mask & KNOB_BIT(KNOB_SLICE) ? " " : "",
                         s->mask & KNOB_BIT(KNOB_SLICE) ? task_attr_format_knob(&s->attr, KNOB_SLICE, c, sizeof c) : "");
                return buf;
        }
}

static void list(void) {
        printf("%-18s", "VARIANT");
        for (int r = 0; r < _ROLE_MAX; r++)
                printf("%-22s ", role_names[r]);
        printf("WHAT\n");
        for (size_t i = 0; i < ELEMENTSOF(variants); i++) {
                printf("%-18s", variants[i].name);
                for (int r = 0; r < _ROLE_MAX; r++) {
                        char buf[64];
                        printf("%-22s ", setting_format(&variants[i].role[r], buf, sizeof buf));
                }
                printf("%s\n", variants[i].what);
        }
}

static int apply_thread(pid_t tid, const Variant *v, const Setting *s) {
        ApplyResult res;
        int r;

        switch (s->how) {
        case SET_KEEP:
                return 0;
        case SET_CLASS:
                /* "qosd" is the per-thread half alone; "qosd+groups" all of
                 * the class, its cpu cgroup included, as qosctl applies it. */
                if (v->groups)
                        r = task_apply_class(tid, s->class, &res);
                else {
                        TaskAttr want;
                        class_target_attr(s->class, kernel_caps(), &want);
                        r = task_apply_attr(tid, &want, KNOBS_ALL & ~KNOB_BIT(KNOB_GROUP), &res);
                }
                break;
        case SET_ATTR:
        default:
                r = task_apply_attr(tid, &s->attr, s->mask, &res);
                break;
        }
        if (r == -ESRCH)
                return 0; /* exited meanwhile */
        if (r >= 0 && !apply_result_ok(&res))
                r = apply_result_error(&res);
        return r;
}

int main(int argc, char **argv) {
        if (argc == 2 && strcmp(argv[1], "--list") == 0) {
                list();
                return 0;
        }
        if (argc == 2 && strcmp(argv[1], "--cleanup") == 0) {
                /* The groups the +groups variants made, once their tasks are gone. */
                int r = group_remove_all_empty();
                return r < 0 && r != -EOPNOTSUPP ? 1 : 0;
        }
        if (argc < 4) {
                fprintf(stderr, "usage: qos-bench-apply VARIANT ROLE PID... | --list\n");
                return 2;
        }
        const Variant *v = variant_find(argv[1]);
        int role = role_from_string(argv[2]);
        if (!v || role < 0) {
                fprintf(stderr, "qos-bench-apply: unknown %s '%s' (see --list)\n", v ? "role" : "variant",
                        v ? argv[2] : argv[1]);
                return 2;
        }

        for (int i = 3; i < argc; i++) {
                pid_t pid = (pid_t) atoi(argv[i]);
                _cleanup_free_ pid_t *tids = NULL;
                size_t n;
                int r = proc_list_tasks(pid, &tids, &n);
                if (r < 0) {
                        fprintf(stderr, "qos-bench-apply: %d: %s\n", (int) pid, strerror(-r));
                        return 1;
                }
                for (size_t k = 0; k < n; k++) {
                        r = apply_thread(tids[k], v, &v->role[role]);
                        if (r == -EOPNOTSUPP && v->groups) {
                                fprintf(stderr, "qos-bench-apply: %s: no usable cpu cgroup hierarchy\n", v->name);
                                return 77;
                        }
                        if (r < 0) {
                                fprintf(stderr, "qos-bench-apply: %s %s: thread %d: %s\n", v->name, argv[2],
                                        (int) tids[k], strerror(-r));
                                return 1;
                        }
                }
        }
        return 0;
}
