/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl top: a live view of the threads by class, with each thread's CPU
 * share and run-queue wait since the last refresh, its rule and its group.
 * Interactive on a terminal (ncurses), plain text with -b. */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/macro.h"
#include "cli/top-draw.h"
#include "cli/top-format.h"
#include "cli/top-sample.h"

#define DELAY_MIN 0.1
#define DELAY_MAX 3600.0

typedef struct TopOptions {
        bool batch;
        unsigned long iterations;       /* 0: until q (or forever with -b) */
        double delay;                   /* seconds between refreshes */
        TopSort sort;
        pid_t *only;                    /* -p: the processes to show */
        size_t n_only;
} TopOptions;

static void help(void) {
        printf("Usage: qosctl top [-b] [-n N] [-d SECONDS] [-s wait|cpu] [-p PID[,PID...]]\n\n"
               "A live view of the threads, grouped by class: each thread's CPU share (%% of\n"
               "one CPU) and how long it waited on a run queue for a CPU (/proc/TID/schedstat)\n"
               "since the last refresh, its state, group and the rule that gave its class,\n"
               "and a totals line per class. Asks qosd (as 'qosctl ps -a'); without qosd the\n"
               "classes are read from the threads' kernel attributes (as 'qosctl get').\n\n"
               "  -b, --batch            plain text, one frame per refresh, for scripts\n"
               "  -n, --iterations N     stop after N refreshes\n"
               "  -d, --delay SECONDS    time between refreshes (default 1)\n"
               "  -s, --sort wait|cpu    sort the threads of each class (default wait)\n"
               "  -p, --pid PID,...      only the threads of these processes (repeatable)\n"
               "  -h, --help             show this help\n\n"
               "Keys: w sort by wait, c sort by CPU, q quit.\n");
}

/* "-p 1,2 -p 3": a list, as top takes it. */
static int parse_pids(const char *arg, TopOptions *o) {
        _cleanup_free_ char *copy = strdup(arg);
        char *save = NULL;
        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                pid_t pid, *p = realloc(o->only, (o->n_only + 1) * sizeof *p);
                if (!p)
                        return -ENOMEM;
                o->only = p;
                if (cli_parse_pid(w, &pid) < 0)
                        return -EINVAL;
                o->only[o->n_only++] = pid;
        }
        if (o->n_only == 0) {
                fprintf(stderr, "qosctl top: -p needs a process ID\n");
                return -EINVAL;
        }
        return 0;
}

static int parse_options(int argc, char **argv, TopOptions *o) {
        static const struct option opts[] = {
                { "batch", no_argument, NULL, 'b' },
                { "iterations", required_argument, NULL, 'n' },
                { "delay", required_argument, NULL, 'd' },
                { "sort", required_argument, NULL, 's' },
                { "pid", required_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        char *end;
        int c, s;

        while ((c = getopt_long(argc, argv, "bn:d:s:p:h", opts, NULL)) >= 0) {
                switch (c) {
                case 'b':
                        o->batch = true;
                        break;
                case 'n':
                        errno = 0;
                        o->iterations = strtoul(optarg, &end, 10);
                        if (errno || end == optarg || *end || o->iterations == 0 || *optarg == '-') {
                                fprintf(stderr, "qosctl top: -n takes a positive count, not '%s'\n", optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 'd':
                        o->delay = strtod(optarg, &end);
                        if (end == optarg || *end || !isfinite(o->delay) || o->delay < DELAY_MIN ||
                            o->delay > DELAY_MAX) {
                                fprintf(stderr, "qosctl top: -d takes seconds from %.1f to %.0f, not '%s'\n",
                                        DELAY_MIN, DELAY_MAX, optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 's':
                        s = top_sort_from_string(optarg);
                        if (s < 0) {
                                fprintf(stderr, "qosctl top: -s takes wait or cpu, not '%s'\n", optarg);
                                return EXIT_USAGE;
                        }
                        o->sort = (TopSort) s;
                        break;
                case 'p':
                        if (parse_pids(optarg, o) < 0)
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
                fprintf(stderr, "qosctl top: unexpected argument '%s'\n", argv[optind]);
                return EXIT_USAGE;
        }
        return -1;
}

static void print_frame(const TopSnapshot *cur, const TopView *v, const TopOptions *o, bool first) {
        char line[512];

        if (!first)
                putchar('\n');
        for (size_t i = 0; i < TOP_TITLE_LINES; i++) {
                top_format_title(cur, v, o->sort, o->delay, i, line, sizeof line);
                puts(line);
        }
        putchar('\n');
        top_format_columns(line, sizeof line);
        puts(line);
        for (size_t c = 0; c < v->n_classes; c++) {
                top_format_class(&v->classes[c], v->classes[c].n, line, sizeof line);
                puts(line);
                for (size_t i = 0; i < v->classes[c].n; i++) {
                        top_format_row(&v->rows[v->classes[c].first + i], line, sizeof line);
                        puts(line);
                }
        }
        fflush(stdout);
}

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Until the next refresh: keys act on the view on the screen. Returns true
 * when the user quits. */
static bool wait_keys(const TopSnapshot *cur, TopView *v, TopOptions *o) {
        uint64_t deadline = now_ms() + (uint64_t) (o->delay * 1000.0);

        for (uint64_t now; (now = now_ms()) < deadline;) {
                uint64_t left = deadline - now;
                int k = top_draw_key(left > INT_MAX ? INT_MAX : (int) left);
                switch (k) {
                case 'q':
                case 'Q':
                        return true;
                case 'w':
                case 'c':
                        o->sort = k == 'w' ? TOP_SORT_WAIT : TOP_SORT_CPU;
                        top_view_sort(v, o->sort);
                        top_draw(cur, v, o->sort, o->delay);
                        break;
                case KEY_RESIZE:
                        top_draw(cur, v, o->sort, o->delay);
                        break;
                }
        }
        return false;
}

static void sleep_sec(double sec) {
        struct timespec ts = { (time_t) sec, (long) ((sec - (double) (time_t) sec) * 1e9) };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int run(TopOptions *o) {
        TopSampler sampler = { .only = o->only, .n_only = o->n_only };
        TopSnapshot prev = {}, cur = {};
        TopView view = {};
        int r;

        r = top_sample_take(&sampler, &prev);
        if (r >= 0 && !o->batch) {
                /* Something on the screen at once; the numbers need an interval. */
                r = top_view_build(NULL, &prev, o->sort, &view);
                if (r >= 0)
                        top_draw(&prev, &view, o->sort, o->delay);
        }
        for (unsigned long i = 0; r >= 0 && (o->iterations == 0 || i < o->iterations); i++) {
                if (o->batch)
                        sleep_sec(o->delay);
                else if (wait_keys(&prev, &view, o))
                        break;
                top_view_clear(&view);
                r = top_sample_take(&sampler, &cur);
                if (r < 0)
                        break;
                r = top_view_build(&prev, &cur, o->sort, &view);
                if (r < 0)
                        break;
                if (o->batch)
                        print_frame(&cur, &view, o, i == 0);
                else
                        top_draw(&cur, &view, o->sort, o->delay);
                top_snapshot_clear(&prev);
                prev = cur;
                cur = (TopSnapshot) {};
        }
        top_view_clear(&view);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
        top_sampler_done(&sampler);
        return r;
}

/* The checks that need no terminal, then the view. */
static int run_checked(TopOptions *o) {
        int r;

        if (top_sample_supported() < 0) {
                fprintf(stderr, "qosctl top: this kernel does not report run-queue wait per thread "
                                "(/proc/TID/schedstat, CONFIG_SCHED_INFO)\n");
                return EXIT_FAIL;
        }
        for (size_t i = 0; i < o->n_only; i++)
                if (kill(o->only[i], 0) < 0 && errno == ESRCH) {
                        fprintf(stderr, "qosctl: no such process: %d\n", (int) o->only[i]);
                        return EXIT_NOTFOUND;
                }
        if (!o->batch && top_draw_start() < 0) {
                fprintf(stderr, "qosctl top: not a terminal (or $TERM unknown); use -b for plain text\n");
                return EXIT_USAGE;
        }
        r = run(o);
        if (!o->batch)
                top_draw_stop();
        if (r < 0) {
                fprintf(stderr, "qosctl top: cannot read the threads: %s\n", strerror(-r));
                return EXIT_FAIL;
        }
        return EXIT_OK;
}

int cmd_top(int argc, char **argv) {
        TopOptions o = { .delay = 1.0, .sort = TOP_SORT_WAIT };
        int r;

        r = parse_options(argc, argv, &o);
        if (r < 0)
                r = run_checked(&o);
        free(o.only);
        return r;
}
