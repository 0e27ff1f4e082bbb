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
        char comm[TOP_COMM_MAX];
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
        TopRow *rows;                   /* grouped by class, sorted within */
        size_t n_rows;
        TopClassTotal *classes;         /* user-interactive first, then by importance, others last */
        size_t n_classes;
        double cpu_pct;                 /* all threads */
        uint64_t wait_ns;
        size_t managed;                 /* threads qosd manages (state not unmanaged/realtime) */
} TopView;

/* The rows for `cur`, with the deltas since `prev` (NULL: no previous
 * snapshot yet, so no interval: every share and wait is 0). A thread that exited
 * between the two is not shown; a thread whose TID is in `prev` with
 * another start time is a new thread that got the TID again. A delta is
 * never more than the interval: what a new thread did before `prev` was
 * taken cannot be told apart from what it did since. The view points into
 * `cur`, which must outlive it. */
int top_view_build(const TopSnapshot *prev, const TopSnapshot *cur, TopSort sort, TopView *ret);

/* Sort again by another key, without new snapshots. */
void top_view_sort(TopView *v, TopSort sort);

void top_view_clear(TopView *v);

/* How many rows of each class fit in `lines` lines when every class takes
 * one line for its totals: the lines are shared out one row at a time, a
 * class at a time, so a class with hundreds of idle threads cannot push the
 * others off the screen. ret_shown[i] for v->classes[i]. */
void top_view_fit(const TopView *v, size_t lines, size_t *ret_shown);
