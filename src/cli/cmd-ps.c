/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl ps: the threads qosd manages (or, with -a, every thread) with
 * the class in force, its state (why, when it is not the one asked for),
 * the rule or request that gave it, and the knobs in force now; sorted by
 * PID and TID, and cut to the terminal's width. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bus-client.h"
#include "cli/cli.h"
#include "cli/loan-marks.h"
#include "cli/table.h"
#include "core/macro.h"
#include "core/term-escape.h"
#include "units/app-id.h"

static void help(void) {
        printf("Usage: qosctl ps [-a] [-p PID]\n\n"
               "List the threads qosd manages: the class in force, its state, the rule or\n"
               "request that gave it (file:line) and the knobs the kernel reports now.\n"
               "Asks qosd. Sorted by PID and TID; on a terminal cut to its width.\n\n"
               "  -a, --all        every thread on the system, managed or not\n"
               "  -p, --pid PID    only the threads of process PID\n"
               "  -h, --help       show this help\n\n"
               "STATE is applied (the rule's class), held (a rule's user-interactive held\n"
               "at utility outside the foreground, or a request held below what it asked\n"
               "by the foreground or a cap), capped (a MaxClass= lowered the rule's class),\n"
               "requested (granted as asked: qosctl set, run, libqos), inherited (created\n"
               "by a managed task), foreign (changed by someone else since: left alone),\n"
               "unmanaged, realtime. 'qosctl explain TID' says why in full.\n"
               "Other users' threads show what /proc shows anyone: no timer slack, and no\n"
               "RULE from the owner's own rule file (\"hidden: not your process\").\n\n"
               "LOAN, from the loans qosd holds for your processes (root: all):\n"
               "stalled:TID a user-class thread waits on a lock held by TID, of a lower\n"
               "class (raised by the loan while it waits); waits:TID another waiter;\n"
               "lent:CLASS raised by loans to CLASS.\n\n"
               "APP, the application's ID, as AppId= rules match it: from the unit its desktop\n"
               "started it in (app-flatpak-org.mozilla.firefox-1234.scope), or its Flatpak\n"
               "instance's info file.\n");
}

enum { COL_PID, COL_TID, COL_COMM, COL_CLASS, COL_STATE, COL_RULE, COL_LOAN, COL_APP, COL_KNOBS, _COL_MAX };

/* On a terminal too narrow for all of it, RULE gives up width first (a
 * file keeps its end, file:line; a request its start), then KNOBS, left
 * out when too narrow to show policy and nice, then COMM. LOAN and APP are
 * left out there when no thread has one; APP gives up its width first. */
static const TableColumn columns[_COL_MAX] = {
        [COL_PID] = { "PID", .right = true },
        [COL_TID] = { "TID", .right = true },
        [COL_COMM] = { "COMM", .cut = TABLE_CUT_END, .min = 8, .order = 3 },
        [COL_CLASS] = { "CLASS" },
        [COL_STATE] = { "STATE" },
        [COL_RULE] = { "RULE", .cut = TABLE_CUT_PATH, .min = 16, .order = 1 },
        [COL_LOAN] = { "LOAN", .hide_blank = true },
        [COL_APP] = { "APP", .cut = TABLE_CUT_END, .min = 12, .drop = true, .hide_blank = true },
        [COL_KNOBS] = { "KNOBS", .cut = TABLE_CUT_END, .min = 24, .drop = true, .order = 2 },
};

/* One thread, every string escaped: names and paths others chose. */
typedef struct Row {
        int32_t pid, tid;
        char *comm, *class_name, *state, *origin, *knobs;
        char loan[64];
        char app[APP_ID_MAX];   /* "-": none known */
} Row;

static void row_clear(Row *r) {
        free(r->comm);
        free(r->class_name);
        free(r->state);
        free(r->origin);
        free(r->knobs);
}

/* The app ID of process pid, as qosd reads it (units/app-id.h): its unit's
 * name, else its Flatpak instance's info file where this user may read it. */
static void app_of(pid_t pid, char ret[APP_ID_MAX]) {
        if (app_id_read(pid, NULL, true, ret) < 0)
                snprintf(ret, APP_ID_MAX, "-");
}

static int row_from(const CliTaskRow *t, const CliLoans *loans, Row *ret) {
        *ret = (Row) {
                .pid = t->pid,
                .tid = t->tid,
                .comm = term_escape(t->comm),
                .class_name = term_escape(t->class_name),
                .state = term_escape(t->state),
                .origin = term_escape(t->origin),
                .knobs = term_escape(t->knobs),
        };
        cli_loan_mark(loans, t->tid, ret->loan, sizeof ret->loan);
        snprintf(ret->app, sizeof ret->app, "-");
        if (!ret->comm || !ret->class_name || !ret->state || !ret->origin || !ret->knobs) {
                row_clear(ret);
                return -ENOMEM;
        }
        return 0;
}

static int cmp_row(const void *a, const void *b) {
        const Row *x = a, *y = b;
        if (x->pid != y->pid)
                return (x->pid > y->pid) - (x->pid < y->pid);
        return (x->tid > y->tid) - (x->tid < y->tid);
}

typedef struct Rows {
        Row *rows;
        size_t n;
} Rows;

static void rows_clear(Rows *l) {
        for (size_t i = 0; i < l->n; i++)
                row_clear(&l->rows[i]);
        free(l->rows);
        *l = (Rows) {};
}

/* The reply's threads (of process only, if not 0), sorted. */
static int read_rows(sd_bus_message *reply, const CliLoans *loans, pid_t only, Rows *ret) {
        CliTaskRow t;
        int r = cli_task_rows_begin(reply);
        while (r >= 0 && (r = cli_task_row_next(reply, &t)) > 0) {
                if (t.pid == 0 && strcmp(t.state, QOS_LIST_TASKS_TRUNCATED) == 0) {
                        _cleanup_free_ char *why = term_escape(t.origin);
                        fprintf(stderr, "qosctl: incomplete list: qosd says %s\n", why ?: "?");
                        continue;
                }
                if (only && t.pid != only)
                        continue;
                Row *rows = realloc(ret->rows, (ret->n + 1) * sizeof *rows);
                if (!rows)
                        return -ENOMEM;
                ret->rows = rows;
                r = row_from(&t, loans, &ret->rows[ret->n]);
                if (r < 0)
                        return r;
                ret->n++;
        }
        if (r < 0)
                return r;
        if (ret->n > 1)
                qsort(ret->rows, ret->n, sizeof *ret->rows, cmp_row);
        /* Once a process: its threads follow one another now. */
        for (size_t i = 0; i < ret->n; i++)
                if (i > 0 && ret->rows[i].pid == ret->rows[i - 1].pid)
                        memcpy(ret->rows[i].app, ret->rows[i - 1].app, sizeof ret->rows[i].app);
                else
                        app_of(ret->rows[i].pid, ret->rows[i].app);
        return 0;
}

static int print_rows(const Rows *l, size_t width) {
        _cleanup_(table_clear) Table t;
        char pid[16], tid[16];

        table_init(&t, columns, _COL_MAX);
        for (size_t i = 0; i < l->n; i++) {
                const Row *r = &l->rows[i];
                snprintf(pid, sizeof pid, "%d", (int) r->pid);
                snprintf(tid, sizeof tid, "%d", (int) r->tid);
                const char *cells[_COL_MAX] = {
                        [COL_PID] = pid, [COL_TID] = tid, [COL_COMM] = r->comm,
                        [COL_CLASS] = r->class_name, [COL_STATE] = r->state,
                        [COL_RULE] = *r->origin ? r->origin : "-",
                        [COL_LOAN] = r->loan, [COL_APP] = r->app, [COL_KNOBS] = r->knobs,
                };
                if (table_add_row(&t, cells) < 0)
                        return -ENOMEM;
        }
        table_print(&t, stdout, width);
        return 0;
}

/* -p PID matched nothing: a process that does not exist is an error. */
static int report_no_rows(pid_t only, bool all) {
        char path[32];
        snprintf(path, sizeof path, "/proc/%d", (int) only);
        if (access(path, F_OK) < 0) {
                fprintf(stderr, "qosctl ps: no such process: %d\n", (int) only);
                return EXIT_NOTFOUND;
        }
        if (!all)
                fprintf(stderr, "qosctl ps: qosd manages no thread of process %d ('qosctl ps -a -p %d' lists them all)\n",
                        (int) only, (int) only);
        return EXIT_OK;
}

int cmd_ps(int argc, char **argv) {
        static const struct option opts[] = {
                { "all", no_argument, NULL, 'a' },
                { "pid", required_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(cli_loans_clear) CliLoans loans = {};
        _cleanup_(rows_clear) Rows rows = {};
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

        cli_loans_fetch(reply, &loans);
        r = read_rows(reply, &loans, only, &rows);
        if (r < 0) {
                fprintf(stderr, "qosctl: %s\n", r == -ENOMEM ? strerror(ENOMEM) : "malformed reply from qosd");
                return EXIT_FAIL;
        }
        if (only && rows.n == 0)
                return report_no_rows(only, all);
        if (print_rows(&rows, table_terminal_width(STDOUT_FILENO)) < 0) {
                fprintf(stderr, "qosctl: %s\n", strerror(ENOMEM));
                return EXIT_FAIL;
        }
        return EXIT_OK;
}
