/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl set: the class of one thread, or of every thread of a process.
 * Asks qosd when it runs (class-request.h), else sets the knobs itself;
 * says in one line what each thread got. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/class-request.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/proc.h"

static void help(void) {
        printf("Usage: qosctl set -c CLASS -p TID [-a] [-v]\n\n"
               "Set the class of thread TID (a PID names the main thread). When qosd runs,\n"
               "qosctl asks it, and qosd grants, holds lower (outside the foreground, at a\n"
               "cap) or refuses; otherwise it sets the knobs itself, and raising a class\n"
               "needs root. Prints what each thread got, one line.\n\n"
               "  -c, --class CLASS  user-interactive, user-initiated, utility, background\n"
               "  -p, --pid TID      the thread, or with -a the process\n"
               "  -a, --all-tasks    every thread of the process\n"
               "  -v, --verbose      print what changed\n"
               "  -h, --help         show this help\n");
}

/* The distinct answers the threads got, each with its count: one line
 * each, so that -a on a hundred threads says it in one. */
#define OUTCOMES_MAX 8
typedef struct Outcomes {
        struct {
                char text[400];
                size_t n;
        } o[OUTCOMES_MAX];
        size_t n, threads;
} Outcomes;

static void outcome_add(Outcomes *l, const char *text) {
        l->threads++;
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->o[i].text, text) == 0) {
                        l->o[i].n++;
                        return;
                }
        size_t i = l->n < OUTCOMES_MAX ? l->n++ : OUTCOMES_MAX - 1;
        if (l->o[i].n > 0)
                text = "other answers"; /* more kinds than lines: the last one counts the rest */
        snprintf(l->o[i].text, sizeof l->o[i].text, "%s", text);
        l->o[i].n++;
}

static void outcomes_print(const Outcomes *l, const char *who, bool all) {
        for (size_t i = 0; i < l->n; i++) {
                if (!all)
                        printf("%s: %s\n", who, l->o[i].text);
                else if (l->n == 1)
                        printf("%s, %zu thread%s: %s\n", who, l->o[i].n, l->o[i].n == 1 ? "" : "s", l->o[i].text);
                else
                        printf("%s, %zu of %zu threads: %s\n", who, l->o[i].n, l->threads, l->o[i].text);
        }
}

static int set_brokered(ClassRequester *q, const pid_t *tids, size_t n, const CliTaskOptions *o,
                        Outcomes *ret) {
        char text[400];
        int worst = EXIT_OK;

        for (size_t i = 0; i < n; i++) {
                ClassAnswer a;
                int r = class_request_thread(q, tids[i], o->class, o->verbose, o->all, &a);
                if (r > worst)
                        worst = r;
                /* Refused, or qosd gone: the rest would fare the same. */
                if (r == EXIT_DENIED || r == EXIT_NODAEMON)
                        break;
                if (r == EXIT_OK && a.granted != QCLASS_UNSPECIFIED)
                        outcome_add(ret, class_answer_format(&a, text, sizeof text));
        }
        return worst;
}

static int set_direct(const pid_t *tids, size_t n, const CliTaskOptions *o, Outcomes *ret) {
        char text[400];
        int worst = EXIT_OK;

        snprintf(text, sizeof text, "%s (set directly: qosd is not running)", qclass_to_string(o->class));
        for (size_t i = 0; i < n; i++) {
                bool done;
                /* A thread that exits between the listing and the apply is
                 * simply no longer there; the rest still get the class. */
                int r = cli_apply_to_thread(tids[i], o->class, o->verbose, o->all, &done);
                if (r > worst)
                        worst = r;
                if (r == EXIT_DENIED)
                        break; /* decided before anything changed: so would the rest be */
                if (done)
                        outcome_add(ret, text);
        }
        return worst;
}

int cmd_set(int argc, char **argv) {
        _cleanup_(class_request_close) ClassRequester q = {};
        _cleanup_free_ pid_t *tids = NULL;
        CliTaskOptions o = {};
        Outcomes outcomes = {};
        char who[128];
        size_t n = 1;
        int r;

        r = cli_parse_task_options(argc, argv, "c:p:avh", help, &o);
        if (r >= 0)
                return r;
        cli_use_cpu_kinds("/sys");
        if (o.class == QCLASS_UNSPECIFIED || o.pid == 0 || optind < argc) {
                fprintf(stderr, "qosctl set: need -c CLASS and -p TID; see 'qosctl set --help'\n");
                return EXIT_USAGE;
        }
        if (o.all && proc_list_tasks(o.pid, &tids, &n) < 0) {
                fprintf(stderr, "qosctl set: no such process: %d\n", (int) o.pid);
                return EXIT_NOTFOUND;
        }
        cli_thread_subject(o.pid, who, sizeof who); /* before any thread can exit */

        if (class_request_open(&q, "set") > 0)
                r = set_brokered(&q, tids ?: &o.pid, n, &o, &outcomes);
        else
                r = set_direct(tids ?: &o.pid, n, &o, &outcomes);
        outcomes_print(&outcomes, who, o.all);
        return r;
}
