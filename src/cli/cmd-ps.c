/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl ps: the threads qosd manages (or, with -a, every thread) with
 * their class, the rule that gave it, and the knobs in force now. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bus-client.h"
#include "cli.h"
#include "loan-marks.h"

static void help(void) {
        printf("Usage: qosctl ps [-a] [-p PID]\n\n"
               "List the threads qosd manages: class, state, the rule that decided\n"
               "(file:line) and the knobs the kernel reports now. Asks qosd.\n\n"
               "  -a, --all        every thread on the system, managed or not\n"
               "  -p, --pid PID    only the threads of process PID\n"
               "  -h, --help       show this help\n\n"
               "STATE is applied (qosd's class), inherited (created by a managed task),\n"
               "foreign (changed by someone else since: left alone), unmanaged, realtime.\n"
               "Other users' threads show what /proc shows anyone: no timer slack, and no\n"
               "RULE from the owner's own rule file (\"hidden: not your process\").\n\n"
               "LOAN, from the loans qosd holds for your processes (root: all):\n"
               "stalled:TID a user-class thread waits on a lock held by TID, of a lower\n"
               "class (raised by the loan while it waits); waits:TID another waiter;\n"
               "lent:CLASS raised by loans to CLASS.\n");
}

int cmd_ps(int argc, char **argv) {
        static const struct option opts[] = {
                { "all", no_argument, NULL, 'a' },
                { "pid", required_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        sd_bus_message *reply = NULL;
        pid_t only = 0;
        int all = 0, c, r;

        while ((c = getopt_long(argc, argv, "ap:h", opts, NULL)) >= 0) {
                switch (c) {
                case 'a':
                        all = 1;
                        break;
                case 'p':
                        if (cli_parse_pid(optarg, &only) < 0)
                                return EXIT_USAGE;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                default:
                        return EXIT_USAGE;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "qosctl ps: unexpected argument '%s'\n", argv[optind]);
                return EXIT_USAGE;
        }
        r = cli_bus_call(NULL, "ListTasks", &reply, "b", all);
        if (r != 0)
                return r;

        CliLoans loans;
        char mark[64];
        cli_loans_fetch(reply, &loans);
        printf("%-7s %-7s %-15s %-16s %-9s %-30s %-15s %s\n", "PID", "TID", "COMM", "CLASS", "STATE", "RULE",
               "LOAN", "KNOBS");
        r = cli_task_rows_begin(reply);
        CliTaskRow t;
        while (r >= 0 && (r = cli_task_row_next(reply, &t)) > 0) {
                if (t.pid == 0 && strcmp(t.state, QOS_LIST_TASKS_TRUNCATED) == 0) {
                        fprintf(stderr, "qosctl: incomplete list: qosd says %s\n", t.origin);
                        continue;
                }
                if (only && t.pid != only)
                        continue;
                printf("%-7d %-7d %-15s %-16s %-9s %-30s %-15s %s\n", t.pid, t.tid, t.comm, t.class_name,
                       t.state, *t.origin ? t.origin : "-", cli_loan_mark(&loans, t.tid, mark, sizeof mark),
                       t.knobs);
        }
        cli_loans_clear(&loans);
        sd_bus_message_unref(reply);
        if (r < 0) {
                fprintf(stderr, "qosctl: malformed reply from qosd\n");
                return EXIT_FAIL;
        }
        return EXIT_OK;
}
