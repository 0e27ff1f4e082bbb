/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl set: the class of one thread, or of every thread of a process. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "macro.h"
#include "proc.h"

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
        static const struct option opts[] = {
                { "class", required_argument, NULL, 'c' },
                { "pid", required_argument, NULL, 'p' },
                { "all-tasks", no_argument, NULL, 'a' },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        QClass class = QCLASS_UNSPECIFIED;
        pid_t pid = 0;
        bool all = false, verbose = false;
        int c;

        while ((c = getopt_long(argc, argv, "c:p:avh", opts, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        if (cli_parse_class(optarg, &class) < 0)
                                return EXIT_USAGE;
                        break;
                case 'p':
                        if (cli_parse_pid(optarg, &pid) < 0)
                                return EXIT_USAGE;
                        break;
                case 'a':
                        all = true;
                        break;
                case 'v':
                        verbose = true;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                default:
                        return EXIT_USAGE;
                }
        }
        if (class == QCLASS_UNSPECIFIED || pid == 0 || optind < argc) {
                fprintf(stderr, "qosctl set: need -c CLASS and -p TID; see 'qosctl set --help'\n");
                return EXIT_USAGE;
        }
        return all ? set_all(pid, class, verbose) : cli_apply_to_thread(pid, class, verbose, false);
}
