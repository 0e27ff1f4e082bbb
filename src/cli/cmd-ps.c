/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl ps: the threads qosd manages (or, with -a, every thread) with
 * their class, the rule that gave it, and the knobs in force now. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/bus-client.h"
#include "cli/cli.h"
#include "cli/loan-marks.h"
#include "core/macro.h"
#include "core/term-escape.h"

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

/* One row, every string escaped: names and paths others chose. */
static int print_row(const CliTaskRow *t, const CliLoans *loans) {
        _cleanup_free_ char *comm = term_escape(t->comm), *class_name = term_escape(t->class_name),
                            *state = term_escape(t->state), *origin = term_escape(t->origin),
                            *knobs = term_escape(t->knobs);
        char mark[64];
        if (!comm || !class_name || !state || !origin || !knobs)
                return -ENOMEM;
        printf("%-7d %-7d %-15s %-16s %-9s %-30s %-15s %s\n", t->pid, t->tid, comm, class_name, state,
               *origin ? origin : "-", cli_loan_mark(loans, t->tid, mark, sizeof mark), knobs);
        return 0;
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
        cli_loans_fetch(reply, &loans);
        printf("%-7s %-7s %-15s %-16s %-9s %-30s %-15s %s\n", "PID", "TID", "COMM", "CLASS", "STATE", "RULE",
               "LOAN", "KNOBS");
        r = cli_task_rows_begin(reply);
        CliTaskRow t;
        while (r >= 0 && (r = cli_task_row_next(reply, &t)) > 0) {
                if (t.pid == 0 && strcmp(t.state, QOS_LIST_TASKS_TRUNCATED) == 0) {
                        _cleanup_free_ char *why = term_escape(t.origin);
                        fprintf(stderr, "qosctl: incomplete list: qosd says %s\n", why ?: "?");
                        continue;
                }
                if (only && t.pid != only)
                        continue;
                r = print_row(&t, &loans);
        }
        cli_loans_clear(&loans);
        sd_bus_message_unref(reply);
        if (r < 0) {
                fprintf(stderr, "qosctl: %s\n", r == -ENOMEM ? strerror(ENOMEM) : "malformed reply from qosd");
                return EXIT_FAIL;
        }
        return EXIT_OK;
}
