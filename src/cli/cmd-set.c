/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl set: the class of one thread, or of every thread of a process. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "core/macro.h"
#include "core/proc.h"

static void help(void) {
        printf("Usage: qosctl set -c CLASS -p TID [-a] [-v]\n\n"
               "Set the class of thread TID (a PID names the main thread).\n\n"
               "  -c, --class CLASS  user-interactive, user-initiated, utility, background\n"
               "  -p, --pid TID      the thread, or with -a the process\n"
               "  -a, --all-tasks    every thread of the process\n"
               "  -v, --verbose      print what changed\n"
               "  -h, --help         show this help\n");
}

static int set_all(pid_t pid, QClass class, bool verbose) {
        _cleanup_free_ pid_t *tids = NULL;
        size_t n;
        int r, worst = EXIT_OK;

        r = proc_list_tasks(pid, &tids, &n);
        if (r < 0) {
                fprintf(stderr, "qosctl: no such process: %d\n", (int) pid);
                return EXIT_NOTFOUND;
        }
        for (size_t i = 0; i < n; i++) {
                /* A thread that exits between the listing and the apply is
                 * simply no longer there; the rest still get the class. */
                r = cli_apply_to_thread(tids[i], class, verbose, true);
                if (r > worst)
                        worst = r;
        }
        return worst;
}

int cmd_set(int argc, char **argv) {
        CliTaskOptions o = {};
        int r;

        r = cli_parse_task_options(argc, argv, "c:p:avh", help, &o);
        if (r >= 0)
                return r;
        if (o.class == QCLASS_UNSPECIFIED || o.pid == 0 || optind < argc) {
                fprintf(stderr, "qosctl set: need -c CLASS and -p TID; see 'qosctl set --help'\n");
                return EXIT_USAGE;
        }
        return o.all ? set_all(o.pid, o.class, o.verbose) : cli_apply_to_thread(o.pid, o.class, o.verbose, false);
}
