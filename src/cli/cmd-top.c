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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/macro.h"
#include "cli/top-draw.h"
#include "cli/top-format.h"
#include "cli/table.h"
#include "cli/top-sample.h"

#define DELAY_MIN 0.1
#define DELAY_MAX 3600.0

typedef struct TopOptions {
        bool batch;
        unsigned long iterations;       /* 0: until q (or forever with -b) */
        TopScreen screen;               /* sort, delay, filter */
        pid_t *only;                    /* -p: the processes to show */
        size_t n_only;
} TopOptions;

static void help(void) {
        printf("Usage: qosctl top [-b] [-n N] [-d SECONDS] [-s wait|cpu] [-a] [-k] [-f NAME]\n"
               "                  [-p PID[,PID...]]\n\n"
               "A live view of the threads qosd manages, grouped by class: each thread's CPU\n"
               "share (%% of one CPU) and how long it waited on a run queue for a CPU\n"
               "(/proc/TID/schedstat) since the last refresh, its state, group and the rule\n"
               "that gave its class, and a totals line per class. Asks qosd (as 'qosctl ps -a');\n"
               "without qosd the classes are read from the threads' kernel attributes (as\n"
               "'qosctl get') and every thread is shown.\n\n"
               "  -b, --batch            plain text, one frame per refresh, for scripts\n"
               "  -n, --iterations N     stop after N refreshes\n"
               "  -d, --delay SECONDS    time between refreshes (default 1)\n"
               "  -s, --sort wait|cpu    sort the threads of each class (default wait)\n"
               "  -a, --all              also the threads qosd leaves alone\n"
               "  -k, --kernel           also kernel threads\n"
               "  -f, --find NAME        only threads whose name, or their process's, holds NAME\n"
               "                         (any case)\n"
               "  -p, --pid PID,...      only these processes, every thread of them (repeatable)\n"
               "  -h, --help             show this help\n\n"
               "Keys: arrows, PgUp, PgDn, Home, End scroll; / find by name (Enter with nothing\n"
               "to show all again); a all threads or managed only; k kernel threads; w sort by\n"
               "wait; c sort by CPU; q quit.\n");
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

static int parse_count(const char *arg, unsigned long *ret) {
        char *end;
        errno = 0;
        *ret = strtoul(arg, &end, 10);
        if (errno || end == arg || *end || *ret == 0 || *arg == '-') {
                fprintf(stderr, "qosctl top: -n takes a positive count, not '%s'\n", arg);
                return -EINVAL;
        }
        return 0;
}

static int parse_delay(const char *arg, double *ret) {
        char *end;
        *ret = strtod(arg, &end);
        if (end == arg || *end || !isfinite(*ret) || *ret < DELAY_MIN || *ret > DELAY_MAX) {
                fprintf(stderr, "qosctl top: -d takes seconds from %.1f to %.0f, not '%s'\n", DELAY_MIN,
                        DELAY_MAX, arg);
                return -EINVAL;
        }
        return 0;
}

static int parse_find(const char *arg, TopFilter *f) {
        if (strlen(arg) >= sizeof f->text) {
                fprintf(stderr, "qosctl top: -f takes a name of at most %zu bytes\n", sizeof f->text - 1);
                return -EINVAL;
        }
        snprintf(f->text, sizeof f->text, "%s", arg);
        return 0;
}

static int parse_options(int argc, char **argv, TopOptions *o) {
        static const struct option opts[] = {
                { "batch", no_argument, NULL, 'b' },
                { "iterations", required_argument, NULL, 'n' },
                { "delay", required_argument, NULL, 'd' },
                { "sort", required_argument, NULL, 's' },
                { "all", no_argument, NULL, 'a' },
                { "kernel", no_argument, NULL, 'k' },
                { "find", required_argument, NULL, 'f' },
                { "pid", required_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        int c, s, r = 0;

        while (r >= 0 && (c = getopt_long(argc, argv, "bn:d:s:akf:p:h", opts, NULL)) >= 0) {
                switch (c) {
                case 'b':
                        o->batch = true;
                        break;
                case 'n':
                        r = parse_count(optarg, &o->iterations);
                        break;
                case 'd':
                        r = parse_delay(optarg, &o->screen.delay_sec);
                        break;
                case 's':
                        s = top_sort_from_string(optarg);
                        if (s < 0) {
                                fprintf(stderr, "qosctl top: -s takes wait or cpu, not '%s'\n", optarg);
                                return EXIT_USAGE;
                        }
                        o->screen.sort = (TopSort) s;
                        break;
                case 'a':
                        o->screen.filter.all = true;
                        break;
                case 'k':
                        o->screen.filter.kernel = true;
                        break;
                case 'f':
                        r = parse_find(optarg, &o->screen.filter);
                        break;
                case 'p':
                        /* Processes named are shown whole, managed or not. */
                        o->screen.filter.all = true;
                        r = parse_pids(optarg, o);
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                default:
                        return EXIT_USAGE;
                }
        }
        if (r < 0)
                return EXIT_USAGE;
        if (optind < argc) {
                fprintf(stderr, "qosctl top: unexpected argument '%s'\n", argv[optind]);
                return EXIT_USAGE;
        }
        return -1;
}

static void print_frame(const TopSnapshot *cur, const TopView *v, const TopOptions *o, bool first) {
        char line[512];
        TopLines lines = {};

        if (!first)
                putchar('\n');
        for (size_t i = 0; i < TOP_TITLE_LINES; i++) {
                top_format_title(cur, v, &o->screen.filter, o->screen.sort, o->screen.delay_sec, i, line,
                                 sizeof line);
                puts(line);
        }
        putchar('\n');
        if (top_format_lines(v, table_terminal_width(STDOUT_FILENO), &lines) < 0) {
                fprintf(stderr, "qosctl top: out of memory\n");
                return;
        }
        puts(lines.columns);
        for (size_t i = 0; i < lines.n; i++)
                puts(lines.lines[i]);
        top_lines_clear(&lines);
        fflush(stdout);
}

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Where a scrolling key moves the first line; false for other keys. */
static bool scroll_by_key(int key, size_t *offset) {
        size_t page = top_draw_body_lines() > 1 ? top_draw_body_lines() - 1 : 1;
        switch (key) {
        case KEY_UP:
                *offset = *offset > 0 ? *offset - 1 : 0;
                return true;
        case KEY_DOWN:
                *offset += 1; /* top_draw clamps it */
                return true;
        case KEY_PPAGE:
                *offset = *offset > page ? *offset - page : 0;
                return true;
        case KEY_NPAGE:
        case ' ':
                *offset += page;
                return true;
        case KEY_HOME:
                *offset = 0;
                return true;
        case KEY_END:
                *offset = SIZE_MAX / 2;
                return true;
        default:
                return false;
        }
}

/* What a key changes in the view: the filter or the sort order (true:
 * build the view again), or nothing. */
static bool change_view(int key, TopScreen *s) {
        switch (key) {
        case 'w':
        case 'c':
                s->sort = key == 'w' ? TOP_SORT_WAIT : TOP_SORT_CPU;
                return true;
        case 'a':
                s->filter.all = !s->filter.all;
                s->offset = 0;
                return true;
        case 'k':
                s->filter.kernel = !s->filter.kernel;
                s->offset = 0;
                return true;
        case '/':
                top_draw_ask_filter(&s->filter);
                s->offset = 0;
                return true;
        default:
                return false;
        }
}

/* The two snapshots the view compares, and the view. */
typedef struct TopFrames {
        TopSnapshot older, newer;
        TopView view;
} TopFrames;

static int rebuild(TopFrames *f, const TopScreen *s, bool have_older) {
        top_view_clear(&f->view);
        return top_view_build(have_older ? &f->older : NULL, &f->newer, s->sort, &s->filter, &f->view);
}

/* Until the next refresh: keys act on the view on the screen. Returns 1
 * when the user quits, else 0 or a negative errno. */
static int wait_keys(TopFrames *f, TopOptions *o, bool have_older) {
        uint64_t deadline = now_ms() + (uint64_t) (o->screen.delay_sec * 1000.0);
        int r;

        for (uint64_t now; (now = now_ms()) < deadline;) {
                uint64_t left = deadline - now;
                int k = top_draw_key(left > INT_MAX ? INT_MAX : (int) left);
                if (k == 'q' || k == 'Q')
                        return 1;
                if (change_view(k, &o->screen)) {
                        r = rebuild(f, &o->screen, have_older);
                        if (r < 0)
                                return r;
                } else if (!scroll_by_key(k, &o->screen.offset) && k != KEY_RESIZE)
                        continue;
                top_draw(&f->newer, &f->view, &o->screen);
        }
        return 0;
}

static void sleep_sec(double sec) {
        struct timespec ts = { (time_t) sec, (long) ((sec - (double) (time_t) sec) * 1e9) };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int run(TopOptions *o) {
        TopSampler sampler = { .only = o->only, .n_only = o->n_only };
        TopFrames f = {};
        int r;

        r = top_sample_take(&sampler, &f.newer);
        if (r >= 0 && !o->batch) {
                /* Something on the screen at once; the numbers need an interval. */
                r = rebuild(&f, &o->screen, false);
                if (r >= 0)
                        top_draw(&f.newer, &f.view, &o->screen);
        }
        for (unsigned long i = 0; r >= 0 && (o->iterations == 0 || i < o->iterations); i++) {
                if (o->batch)
                        sleep_sec(o->screen.delay_sec);
                else if ((r = wait_keys(&f, o, i > 0)) != 0)
                        break;
                TopSnapshot next = {};
                r = top_sample_take(&sampler, &next);
                if (r < 0)
                        break;
                top_snapshot_clear(&f.older);
                f.older = f.newer;
                f.newer = next;
                r = rebuild(&f, &o->screen, true);
                if (r < 0)
                        break;
                if (o->batch)
                        print_frame(&f.newer, &f.view, o, i == 0);
                else
                        top_draw(&f.newer, &f.view, &o->screen);
        }
        top_view_clear(&f.view);
        top_snapshot_clear(&f.older);
        top_snapshot_clear(&f.newer);
        top_sampler_done(&sampler);
        return r > 0 ? 0 : r;
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
        TopOptions o = { .screen = { .delay_sec = 1.0, .sort = TOP_SORT_WAIT } };
        int r;

        r = parse_options(argc, argv, &o);
        if (r < 0)
                r = run_checked(&o);
        free(o.only);
        return r;
}
