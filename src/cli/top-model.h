/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl top, the pure part: two snapshots of the threads in, the rows to
 * show out (CPU share and run-queue wait over the interval, grouped by
 * class, sorted), and how many of each class fit on a screen. No /proc,
 * no bus, no terminal: the sampler (top-sample.c) fills the snapshots, the
 * drawers (top-format.c, top-draw.c) show the view. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/proc.h"

#define TOP_COMM_MAX (4 * (PROC_COMM_MAX - 1) + 1) /* from qosd, each byte may come as \xNN */
#define TOP_CLASS_MAX 24        /* "user-interactive", "custom" */
#define TOP_STATE_MAX 16        /* "applied", "unmanaged", ... */
#define TOP_RULE_MAX 256        /* qosd's origin: "file:line", "inherited from ..." */
#define TOP_GROUP_MAX 96        /* "qos.background", "autogroup", "foreign" */

typedef struct TopThread {
        pid_t pid, tid;
        uint64_t start_time;    /* clock ticks since boot: with tid, the thread's identity */
        uint64_t cpu_ns;        /* /proc/TID/schedstat field 1: time on a CPU, since it started */
        uint64_t wait_ns;       /* field 2: time waiting on a run queue, since it started */
        bool kernel;            /* a kernel thread (PF_KTHREAD) */
        char comm[TOP_COMM_MAX];
        char process[TOP_COMM_MAX];     /* its process's name: a search finds "firefox" in "Renderer" */
        char class[TOP_CLASS_MAX];
        char state[TOP_STATE_MAX];
        char rule[TOP_RULE_MAX];        /* "" when no rule decided */
        char group[TOP_GROUP_MAX];      /* "" when the kernel has no group knob */
} TopThread;

typedef struct TopSnapshot {
        uint64_t mono_ns;       /* CLOCK_MONOTONIC when taken: the interval */
        int64_t wall_sec;       /* CLOCK_REALTIME, for the header */
        unsigned n_cpus;
        bool daemon;            /* classes, rules and states from qosd */
        char source[160];       /* without qosd: why ("qosd not running") */
        TopThread *threads;     /* sorted by tid */
        size_t n;
} TopSnapshot;

void top_snapshot_clear(TopSnapshot *s);

/* Sort threads by tid, as top_view_build() expects. */
void top_snapshot_sort(TopSnapshot *s);

typedef enum TopSort {
        TOP_SORT_WAIT,
        TOP_SORT_CPU,
        _TOP_SORT_MAX,
} TopSort;

const char *top_sort_to_string(TopSort s);
int top_sort_from_string(const char *s); /* TopSort, or -EINVAL */

/* Which threads the view shows. */
typedef struct TopFilter {
        bool all;               /* those qosd leaves alone too (without qosd: always) */
        bool kernel;            /* kernel threads too */
        char text[64];          /* "": any; else a piece of the thread's or its process's name, any case */
} TopFilter;

/* Whether the view shows t, a thread of a snapshot taken with (daemon) or
 * without qosd. */
bool top_filter_matches(const TopFilter *f, const TopThread *t, bool daemon);

typedef struct TopRow {
        const TopThread *thread;        /* in the current snapshot */
        double cpu_pct;                 /* CPU over the interval, in % of one CPU */
        uint64_t wait_ns;               /* run-queue wait in the interval */
        bool fresh;                     /* not in the previous snapshot (new, or its TID reused) */
} TopRow;

typedef struct TopClassTotal {
        const char *name;               /* points into a row's thread */
        size_t first, n;                /* its rows: view.rows[first .. first + n) */
        double cpu_pct;
        uint64_t wait_ns;
} TopClassTotal;

typedef struct TopView {
        uint64_t interval_ns;
        TopRow *rows;                   /* the threads the filter lets through, grouped by class, sorted within */
        size_t n_rows;
        TopClassTotal *classes;         /* user-interactive first, then by importance, others last */
        size_t n_classes;
        size_t n_threads;               /* in the snapshot, shown or not */
        double cpu_pct;                 /* of all of them */
        uint64_t wait_ns;
        size_t managed;                 /* of them, those qosd manages (state not unmanaged/realtime) */
} TopView;

/* The rows for `cur`, with the deltas since `prev` (NULL: no previous
 * snapshot yet, so no interval: every share and wait is 0). A thread that exited
 * between the two is not shown; a thread whose TID is in `prev` with
 * another start time is a new thread that got the TID again. A delta is
 * never more than the interval: what a new thread did before `prev` was
 * taken cannot be told apart from what it did since. The view points into
 * `cur`, which must outlive it. */
int top_view_build(const TopSnapshot *prev, const TopSnapshot *cur, TopSort sort, const TopFilter *filter,
                   TopView *ret);

/* Sort again by another key, without new snapshots. */
void top_view_sort(TopView *v, TopSort sort);

void top_view_clear(TopView *v);

/* The view as lines, as the screen scrolls through it: each class's
 * totals line, then its rows. */
size_t top_view_n_lines(const TopView *v);

/* Line i of the view: its class (an index into v->classes), and its row,
 * or NULL for the class's totals line. */
const TopRow *top_view_line(const TopView *v, size_t i, size_t *ret_class);

/* The first line to show when `body` lines fit on the screen: offset,
 * moved back so the screen stays full at the end of the view. */
size_t top_scroll_clamp(size_t offset, size_t n_lines, size_t body);
