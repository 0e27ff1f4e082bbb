/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/cpu-kinds-conf.h"
#include "core/class-table.h"
#include "cli/cli.h"
#include "core/group.h"
#include "core/kernel-caps.h"
#include "core/macro.h"
#include "core/proc.h"
#include "core/task-privilege.h"
#include "core/term-escape.h"

static const char *root_override;

void cli_use_cpu_kinds(const char *sys) {
        CpuKinds k;
        char note[512];
        cpu_kinds_for_root(cli_root(), sys, &k, note, sizeof note);
        kernel_caps_use_cpu_kinds(&k);
}

const char *cli_root(void) {
        if (root_override)
                return root_override;
        const char *e = getenv("QOS_ROOT");
        return e && *e ? e : NULL;
}

void cli_set_root(const char *root) {
        root_override = root;
}

int cli_parse_class(const char *s, QClass *ret) {
        int c = qclass_from_string(s);
        if (c < 0 || !qclass_is_valid(c)) {
                fprintf(stderr, "qosctl: unknown class '%s'; valid classes: %s\n", s, qclass_valid_names());
                return -EINVAL;
        }
        *ret = (QClass) c;
        return 0;
}

int cli_parse_pid(const char *s, pid_t *ret) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || end == s || *end || v <= 0 || v > INT_MAX) {
                fprintf(stderr, "qosctl: '%s' is not a process or thread ID\n", s);
                return -EINVAL;
        }
        *ret = (pid_t) v;
        return 0;
}

int cli_parse_task_options(int argc, char **argv, const char *shortopts, void (*help)(void),
                           CliTaskOptions *o) {
        static const struct option opts[] = {
                { "class", required_argument, NULL, 'c' },
                { "pid", required_argument, NULL, 'p' },
                { "all-tasks", no_argument, NULL, 'a' },
                { "verbose", no_argument, NULL, 'v' },
                { "preload", no_argument, NULL, 'P' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        int c;

        while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) >= 0) {
                /* The long table is shared; a command takes only its letters. */
                if (c == '?' || !strchr(shortopts, c)) {
                        if (c != '?')
                                fprintf(stderr, "qosctl %s: option not valid here; see --help\n", argv[0]);
                        return EXIT_USAGE;
                }
                switch (c) {
                case 'c':
                        if (cli_parse_class(optarg, &o->class) < 0)
                                return EXIT_USAGE;
                        break;
                case 'p':
                        if (cli_parse_pid(optarg, &o->pid) < 0)
                                return EXIT_USAGE;
                        break;
                case 'a':
                        o->all = true;
                        break;
                case 'v':
                        o->verbose = true;
                        break;
                case 'P':
                        o->preload = true;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                }
        }
        return -1;
}

static bool owned_by_other_user(pid_t tid) {
        uid_t uid;
        return proc_uid(tid, &uid) >= 0 && uid != getuid();
}

/* The group is not part of a class's identity: a thread outside its
 * class's group is still in the class, its effect is only limited to the
 * group it is in. So this is a notice with the reason, never a failure. */
static void report_group_error(pid_t tid, int e, QClass c) {
        char where[512];

        if (e == -EPERM || e == -EACCES)
                fprintf(stderr,
                        "qosctl: thread %d: group not set: moving a thread between cpu cgroups needs root "
                        "(or qosd); %s acts only within the group the thread is in%s\n",
                        (int) tid, qclass_to_string(c), kernel_caps()->cgroup.autogroup ? " (its session)" : "");
        else if (e == -EBUSY && group_describe(tid, c, where, sizeof where) >= 0)
                fprintf(stderr, "qosctl: thread %d: group not set: %s\n", (int) tid, where);
        else
                fprintf(stderr, "qosctl: thread %d: group not set: %s\n", (int) tid,
                        e == -EOPNOTSUPP ? "the kernel accepted it but did not apply it" : strerror(-e));
}

int cli_report_apply_error(pid_t tid, int r, const ApplyResult *res, QClass c) {
        if (r == -ESRCH) {
                fprintf(stderr, "qosctl: no such process or thread: %d\n", (int) tid);
                return EXIT_NOTFOUND;
        }
        if (r == -EBUSY) {
                fprintf(stderr,
                        "qosctl: thread %d is real-time or deadline scheduled; "
                        "qosd leaves such threads alone (change it with chrt first)\n",
                        (int) tid);
                return EXIT_FAIL;
        }
        if (r < 0) {
                fprintf(stderr, "qosctl: thread %d: %s\n", (int) tid, strerror(-r));
                return EXIT_FAIL;
        }

        /* The apply ran; some knobs did not take. The thread is in the class
         * when its identity knobs (policy, nice, slice) took; a refused
         * secondary knob is reported but does not fail the command. */
        unsigned identity = class_identity_knobs(kernel_caps());
        bool denied = false;
        char buf[128];
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!(res->failed & KNOB_BIT(k)))
                        continue;
                int e = res->error[k];
                if (identity & KNOB_BIT(k))
                        denied |= e == -EPERM || e == -EACCES;
                if (k == KNOB_GROUP) {
                        report_group_error(tid, e, c);
                        continue;
                }
                fprintf(stderr, "qosctl: thread %d: %s not set: %s%s\n", (int) tid, knob_to_string(k),
                        e == -EOPNOTSUPP ? "the kernel accepted it but did not apply it" : strerror(-e),
                        k == KNOB_TIMER_SLACK && e == -EPERM && tid != gettid()
                                ? " (another thread's timer slack needs CAP_SYS_NICE)"
                                : "");
        }
        if (!(res->failed & identity))
                return EXIT_OK;
        if (!denied)
                return EXIT_FAIL;
        if (owned_by_other_user(tid))
                fprintf(stderr, "qosctl: thread %d belongs to another user; only root may change it\n",
                        (int) tid);
        else
                fprintf(stderr,
                        "qosctl: %s needs privilege for %s: anyone may lower a class, but raising "
                        "one (lower nice, leaving SCHED_IDLE) must be done as root or granted by qosd\n",
                        qclass_to_string(c), knob_mask_to_string(res->failed, buf, sizeof buf));
        return EXIT_DENIED;
}

void cli_print_changes(pid_t tid, const char *comm, const ApplyResult *res) {
        char a[TASK_ATTR_VALUE_MAX], b[TASK_ATTR_VALUE_MAX];
        _cleanup_free_ char *name = term_escape(comm); /* the thread names itself */
        printf("%d (%s):", (int) tid, name ?: "?");
        if (res->changed == 0 && !(res->before.reset_on_fork != res->after.reset_on_fork))
                printf(" unchanged");
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!(res->changed & KNOB_BIT(k)))
                        continue;
                printf(" %s %s->%s", knob_to_string(k), task_attr_format_knob(&res->before, k, a, sizeof a),
                       task_attr_format_knob(&res->after, k, b, sizeof b));
        }
        if (res->before.reset_on_fork != res->after.reset_on_fork)
                printf(" reset-on-fork %s->%s", res->before.reset_on_fork ? "yes" : "no",
                       res->after.reset_on_fork ? "yes" : "no");
        printf("\n");
}

/* What an unprivileged caller may not change and leaves as it is, said
 * with -v: the cpu cgroup is root's, another thread's timer slack needs
 * CAP_SYS_NICE. qosd, when it runs, sets both. */
static void print_left_out(pid_t tid, const TaskAttr *cur, const TaskAttr *want, unsigned mask) {
        unsigned left = task_attr_diff(cur, want, KNOBS_ALL & ~mask);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (left & KNOB_BIT(k))
                        printf("%d: %s left as it is: %s\n", (int) tid, knob_to_string(k),
                               k == KNOB_GROUP ? "moving a thread between cpu cgroups needs root or qosd"
                                               : "another thread's needs CAP_SYS_NICE or qosd");
}

/* Without privilege, what the caller cannot do is decided before anything
 * is changed: a refused promotion leaves the thread as it was (were it
 * half-applied, qosd would later find it changed by someone else and
 * leave it alone for good). Returns EXIT_OK to go on, else the exit code. */
static int plan_unprivileged(pid_t tid, QClass c, const TaskAttr *cur, TaskAttr *want, unsigned *mask) {
        if (kernel_caps()->privileged)
                return EXIT_OK;
        if (owned_by_other_user(tid)) {
                fprintf(stderr, "qosctl: thread %d belongs to another user; only root may change it\n", (int) tid);
                return EXIT_DENIED;
        }
        if (!task_plan_own_change(cur, tid == gettid(), want, mask))
                return EXIT_OK;
        fprintf(stderr,
                "qosctl: %s for thread %d needs privilege, and qosd, which grants it, is not running: anyone may "
                "lower a class, but raising one (lower nice, leaving SCHED_IDLE) needs root; nothing was changed\n",
                qclass_to_string(c), (int) tid);
        return EXIT_DENIED;
}

int cli_apply_to_thread(pid_t tid, QClass c, bool verbose, bool vanished_ok, bool *ret_done) {
        ApplyResult res;
        TaskAttr cur, want;
        unsigned mask = KNOBS_ALL;
        char comm[PROC_COMM_MAX] = "?";
        int r;

        if (ret_done)
                *ret_done = false;
        r = task_attr_read(tid, &cur);
        if (r >= 0 && task_attr_is_realtime(&cur))
                r = -EBUSY;
        if (r == -ESRCH && vanished_ok)
                return EXIT_OK;
        if (r < 0)
                return cli_report_apply_error(tid, r, NULL, c);
        class_target_attr(c, kernel_caps(), &want);
        task_attr_place(&want, &cur, kernel_caps(), NULL);
        r = plan_unprivileged(tid, c, &cur, &want, &mask);
        if (r != EXIT_OK)
                return r;

        r = task_apply_attr_from(tid, &cur, &want, mask, &res);
        if (r == -ESRCH && vanished_ok)
                return EXIT_OK;
        if (r < 0 || !apply_result_ok(&res)) {
                int e = cli_report_apply_error(tid, r, &res, c);
                if (e != EXIT_OK)
                        return e;
        }
        if (ret_done)
                *ret_done = true;
        if (verbose) {
                (void) proc_comm(0, tid, comm);
                cli_print_changes(tid, comm, &res);
                print_left_out(tid, &cur, &want, mask);
        }
        return EXIT_OK;
}

void cli_print_diags(const DiagList *l) {
        for (size_t i = 0; i < l->n; i++) {
                _cleanup_free_ char *text = NULL, *shown = NULL;
                size_t len;
                FILE *f = open_memstream(&text, &len);
                if (!f)
                        return;
                diag_format(&l->items[i], f);
                if (fclose(f) != 0)
                        return;
                /* One line each, whatever the names in it hold. */
                if (len > 0 && text[len - 1] == '\n')
                        text[len - 1] = '\0';
                shown = term_escape(text);
                fprintf(stderr, "%s\n", shown ?: "?");
        }
}
