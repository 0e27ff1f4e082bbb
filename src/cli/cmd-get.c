/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl get: the class and raw knobs of a thread or of every thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/class-table.h"
#include "cli/cli.h"
#include "core/group.h"
#include "core/kernel-caps.h"
#include "core/macro.h"
#include "core/proc.h"
#include "core/term-escape.h"

static void help(void) {
        printf("Usage: qosctl get -p TID [-a]\n\n"
               "Show the class of thread TID and the knobs it has now.\n"
               "A thread whose settings match no class shows as 'custom'. GROUP is the cpu\n"
               "cgroup it competes in: qosd's group for its class, its session's autogroup\n"
               "(root), or another manager's cgroup (foreign:PATH), which qosd leaves alone.\n\n"
               "  -p, --pid TID      the thread, or with -a the process\n"
               "  -a, --all-tasks    every thread of the process\n"
               "  -h, --help         show this help\n");
}

static const Knob shown[] = { KNOB_POLICY, KNOB_NICE, KNOB_SLICE, KNOB_UCLAMP, KNOB_IOPRIO, KNOB_TIMER_SLACK };

static void print_header(void) {
        printf("%-8s %-16s %-17s", "TID", "COMM", "CLASS");
        for (size_t i = 0; i < ELEMENTSOF(shown); i++)
                printf(" %-9s", knob_to_string(shown[i]));
        printf(" %-8s %s\n", "on-fork", "group");
}

/* The group column: a foreign cgroup is shown with its path, the one
 * thing a user needs to find who manages it. */
static const char *format_group(pid_t tid, const TaskAttr *a, char *buf, size_t size) {
        _cleanup_free_ char *path = NULL;
        if (!kernel_caps()->supported[KNOB_GROUP])
                return "n/a";
        if (a->group_foreign && group_locate(tid, NULL, NULL, &path) >= 0) {
                snprintf(buf, size, "foreign:%s", path);
                return buf;
        }
        return task_attr_format_knob(a, KNOB_GROUP, buf, size);
}

/* Returns 0, or -ESRCH if the thread is gone. */
static int print_thread(pid_t tid) {
        const KernelCaps *caps = kernel_caps();
        char comm[PROC_COMM_MAX] = "?", buf[32], group[256];
        TaskAttr a;
        int r;

        r = task_attr_read(tid, &a);
        if (r < 0)
                return r;
        (void) proc_comm(0, tid, comm);
        _cleanup_free_ char *name = term_escape(comm); /* the thread names itself */
        QClass q = class_from_attr(&a, caps);
        printf("%-8d %-16s %-17s", (int) tid, name ?: "?", q == QCLASS_UNSPECIFIED ? "custom" : qclass_to_string(q));
        for (size_t i = 0; i < ELEMENTSOF(shown); i++) {
                if (!caps->supported[shown[i]])
                        printf(" %-9s", "n/a");
                else
                        printf(" %-9s", task_attr_format_knob(&a, shown[i], buf, sizeof buf));
        }
        /* Another manager's cgroup: a path someone else chose. */
        _cleanup_free_ char *where = term_escape(format_group(tid, &a, group, sizeof group));
        printf(" %-8s %s\n", a.reset_on_fork ? "reset" : "inherit", where ?: "?");
        return 0;
}

int cmd_get(int argc, char **argv) {
        CliTaskOptions o = {};
        int r;

        r = cli_parse_task_options(argc, argv, "p:ah", help, &o);
        if (r >= 0)
                return r;
        pid_t pid = o.pid;
        if (pid == 0 || optind < argc) {
                fprintf(stderr, "qosctl get: need -p TID; see 'qosctl get --help'\n");
                return EXIT_USAGE;
        }

        if (!o.all) {
                print_header();
                r = print_thread(pid);
                if (r < 0) {
                        fprintf(stderr, "qosctl: no such process or thread: %d\n", (int) pid);
                        return r == -ESRCH ? EXIT_NOTFOUND : EXIT_FAIL;
                }
                return EXIT_OK;
        }

        _cleanup_free_ pid_t *tids = NULL;
        size_t n;
        if (proc_list_tasks(pid, &tids, &n) < 0) {
                fprintf(stderr, "qosctl: no such process: %d\n", (int) pid);
                return EXIT_NOTFOUND;
        }
        print_header();
        for (size_t i = 0; i < n; i++)
                (void) print_thread(tids[i]); /* a thread that just exited is skipped */
        return EXIT_OK;
}
