/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl top's pure part: two snapshots in, rows out. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/table.h"
#include "cli/top-format.h"
#include "cli/top-model.h"

#define MS 1000000ULL
/* Every thread, as -a -k show them. */
static const TopFilter every = { .all = true, .kernel = true };
#define SEC (1000 * MS)

/* tid, start time, cpu ms, wait ms, class */
typedef struct Spec {
        pid_t tid;
        uint64_t start;
        uint64_t cpu_ms, wait_ms;
        const char *class;
} Spec;

static TopSnapshot snapshot(uint64_t mono_ns, const Spec *spec, size_t n) {
        TopSnapshot s = { .mono_ns = mono_ns, .n_cpus = 2, .daemon = true, .n = n };
        s.threads = calloc(n ? n : 1, sizeof *s.threads);
        assert_non_null(s.threads);
        for (size_t i = 0; i < n; i++) {
                TopThread *t = &s.threads[i];
                t->pid = 100;
                t->tid = spec[i].tid;
                t->start_time = spec[i].start;
                t->cpu_ns = spec[i].cpu_ms * MS;
                t->wait_ns = spec[i].wait_ms * MS;
                snprintf(t->comm, sizeof t->comm, "t%d", (int) spec[i].tid);
                snprintf(t->class, sizeof t->class, "%s", spec[i].class);
                snprintf(t->state, sizeof t->state, "%s", "applied");
        }
        top_snapshot_sort(&s);
        return s;
}

static const TopRow *row_of(const TopView *v, pid_t tid) {
        for (size_t i = 0; i < v->n_rows; i++)
                if (v->rows[i].thread->tid == tid)
                        return &v->rows[i];
        return NULL;
}

static void test_deltas(void **state) {
        const Spec a[] = { { 7, 50, 100, 10, "utility" }, { 8, 50, 0, 0, "utility" } };
        const Spec b[] = { { 7, 50, 600, 30, "utility" }, { 8, 50, 250, 400, "utility" } };
        TopSnapshot prev = snapshot(1 * SEC, a, 2), cur = snapshot(2 * SEC, b, 2);
        TopView v;

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_CPU, &every, &v), 0);
        assert_int_equal(v.interval_ns, 1 * SEC);
        const TopRow *r7 = row_of(&v, 7), *r8 = row_of(&v, 8);
        assert_non_null(r7);
        assert_non_null(r8);
        assert_float_equal(r7->cpu_pct, 50.0, 1e-9);      /* 500 ms of 1 s */
        assert_int_equal(r7->wait_ns, 20 * MS);
        assert_false(r7->fresh);
        assert_float_equal(r8->cpu_pct, 25.0, 1e-9);
        assert_int_equal(r8->wait_ns, 400 * MS);
        assert_float_equal(v.cpu_pct, 75.0, 1e-9);
        assert_int_equal(v.wait_ns, 420 * MS);
        assert_int_equal(v.managed, 2);

        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

/* Classes in order of importance, anything else after them; each class's
 * rows together; the totals are the sums of its rows. */
static void test_grouping(void **state) {
        const Spec a[] = {
                { 1, 1, 0, 0, "background" }, { 2, 1, 0, 0, "custom" },     { 3, 1, 0, 0, "user-interactive" },
                { 4, 1, 0, 0, "utility" },    { 5, 1, 0, 0, "background" }, { 6, 1, 0, 0, "user-initiated" },
        };
        const Spec b[] = {
                { 1, 1, 100, 300, "background" }, { 2, 1, 10, 0, "custom" },        { 3, 1, 200, 1, "user-interactive" },
                { 4, 1, 50, 5, "utility" },       { 5, 1, 300, 100, "background" }, { 6, 1, 0, 0, "user-initiated" },
        };
        TopSnapshot prev = snapshot(0, a, 6), cur = snapshot(1 * SEC, b, 6);
        TopView v;

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &every, &v), 0);
        assert_int_equal(v.n_classes, 5);
        const char *order[] = { "user-interactive", "user-initiated", "utility", "background", "custom" };
        const size_t count[] = { 1, 1, 1, 2, 1 };
        for (size_t i = 0; i < 5; i++) {
                const TopClassTotal *c = &v.classes[i];
                assert_string_equal(c->name, order[i]);
                assert_int_equal(c->n, count[i]);
                double cpu = 0;
                uint64_t wait = 0;
                for (size_t j = c->first; j < c->first + c->n; j++) {
                        assert_string_equal(v.rows[j].thread->class, order[i]);
                        cpu += v.rows[j].cpu_pct;
                        wait += v.rows[j].wait_ns;
                }
                assert_float_equal(c->cpu_pct, cpu, 1e-9);
                assert_int_equal(c->wait_ns, wait);
        }
        assert_float_equal(v.classes[3].cpu_pct, 40.0, 1e-9);
        assert_int_equal(v.classes[3].wait_ns, 400 * MS);

        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

static void test_sorting(void **state) {
        /* Within one class: 1 waits most, 2 runs most, 3 and 4 tie on both. */
        const Spec a[] = { { 1, 1, 0, 0, "utility" }, { 2, 1, 0, 0, "utility" },
                           { 3, 1, 0, 0, "utility" }, { 4, 1, 0, 0, "utility" } };
        const Spec b[] = { { 1, 1, 100, 500, "utility" }, { 2, 1, 700, 50, "utility" },
                           { 3, 1, 10, 10, "utility" },   { 4, 1, 10, 10, "utility" } };
        TopSnapshot prev = snapshot(0, a, 4), cur = snapshot(1 * SEC, b, 4);
        TopView v;

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &every, &v), 0);
        const pid_t by_wait[] = { 1, 2, 3, 4 }, by_cpu[] = { 2, 1, 3, 4 };
        for (size_t i = 0; i < 4; i++)
                assert_int_equal(v.rows[i].thread->tid, by_wait[i]);
        top_view_sort(&v, TOP_SORT_CPU);
        for (size_t i = 0; i < 4; i++)
                assert_int_equal(v.rows[i].thread->tid, by_cpu[i]);
        /* The totals still describe the rows after a resort. */
        assert_int_equal(v.classes[0].first, 0);
        assert_int_equal(v.classes[0].n, 4);

        assert_int_equal(top_sort_from_string("wait"), TOP_SORT_WAIT);
        assert_int_equal(top_sort_from_string("cpu"), TOP_SORT_CPU);
        assert_int_equal(top_sort_from_string("mem"), -EINVAL);

        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

/* A thread that exited between the snapshots is not shown and counts in
 * no total. */
static void test_exited(void **state) {
        const Spec a[] = { { 10, 5, 100, 100, "background" }, { 11, 5, 100, 100, "background" } };
        const Spec b[] = { { 11, 5, 200, 150, "background" } };
        TopSnapshot prev = snapshot(0, a, 2), cur = snapshot(1 * SEC, b, 1);
        TopView v;

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &every, &v), 0);
        assert_int_equal(v.n_rows, 1);
        assert_null(row_of(&v, 10));
        assert_int_equal(v.n_classes, 1);
        assert_int_equal(v.classes[0].n, 1);
        assert_float_equal(v.classes[0].cpu_pct, 10.0, 1e-9);
        assert_int_equal(v.classes[0].wait_ns, 50 * MS);

        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

/* Same TID, another start time: a new thread. Its counters are its own
 * (smaller than the old thread's here, which a subtraction would wrap),
 * and never more than the interval. */
static void test_tid_reused(void **state) {
        const Spec a[] = { { 20, 100, 5000, 3000, "user-interactive" }, { 21, 100, 0, 0, "utility" } };
        const Spec b[] = { { 20, 180, 300, 40, "background" }, { 21, 100, 0, 0, "utility" }, { 22, 190, 9000, 9000, "utility" } };
        TopSnapshot prev = snapshot(0, a, 2), cur = snapshot(2 * SEC, b, 3);
        TopView v;

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &every, &v), 0);
        const TopRow *r20 = row_of(&v, 20), *r21 = row_of(&v, 21), *r22 = row_of(&v, 22);
        assert_true(r20->fresh);
        assert_float_equal(r20->cpu_pct, 15.0, 1e-9);     /* 300 ms of 2 s */
        assert_int_equal(r20->wait_ns, 40 * MS);
        assert_string_equal(r20->thread->class, "background"); /* the new thread's class */
        assert_false(r21->fresh);
        assert_true(r22->fresh);                           /* not there before: new */
        assert_float_equal(r22->cpu_pct, 100.0, 1e-9);    /* clamped to the interval */
        assert_int_equal(r22->wait_ns, 2 * SEC);

        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

/* Without a previous snapshot there is no interval: all zero, no division. */
static void test_first_snapshot(void **state) {
        const Spec a[] = { { 1, 1, 700, 300, "utility" } };
        TopSnapshot cur = snapshot(5 * SEC, a, 1);
        TopView v;

        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_CPU, &every, &v), 0);
        assert_int_equal(v.interval_ns, 0);
        assert_float_equal(v.rows[0].cpu_pct, 0.0, 0);
        assert_int_equal(v.rows[0].wait_ns, 0);
        top_view_clear(&v);
        top_snapshot_clear(&cur);

        TopSnapshot empty = snapshot(0, NULL, 0);
        assert_int_equal(top_view_build(NULL, &empty, TOP_SORT_CPU, &every, &v), 0);
        assert_int_equal(v.n_rows, 0);
        assert_int_equal(v.n_classes, 0);
        top_view_clear(&v);
        top_snapshot_clear(&empty);
}

/* The default view: the threads qosd manages, no kernel threads; -a, -k
 * and a name widen or narrow it. Without qosd nothing is managed, so
 * every thread is shown. The totals count every thread either way. */
static void test_filter(void **state) {
        const Spec a[] = { { 1, 1, 0, 0, "utility" }, { 2, 1, 0, 0, "utility" }, { 3, 1, 0, 0, "background" },
                           { 4, 1, 0, 0, "utility" } };
        TopSnapshot cur = snapshot(1 * SEC, a, 4);
        TopFilter f = {};
        TopView v;

        snprintf(cur.threads[1].state, sizeof cur.threads[1].state, "unmanaged");
        snprintf(cur.threads[2].process, sizeof cur.threads[2].process, "FireFox-esr");
        snprintf(cur.threads[3].state, sizeof cur.threads[3].state, "unmanaged");
        cur.threads[3].kernel = true;

        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_WAIT, &f, &v), 0);
        assert_int_equal(v.n_rows, 2); /* 1 and 3 */
        assert_int_equal(v.n_threads, 4);
        assert_int_equal(v.managed, 2);
        assert_null(row_of(&v, 2));
        top_view_clear(&v);

        f.all = true;
        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_WAIT, &f, &v), 0);
        assert_int_equal(v.n_rows, 3);
        assert_null(row_of(&v, 4)); /* a kernel thread */
        top_view_clear(&v);

        f.kernel = true;
        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_WAIT, &f, &v), 0);
        assert_int_equal(v.n_rows, 4);
        top_view_clear(&v);

        snprintf(f.text, sizeof f.text, "firefox"); /* the process's name, any case */
        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_WAIT, &f, &v), 0);
        assert_int_equal(v.n_rows, 1);
        assert_non_null(row_of(&v, 3));
        top_view_clear(&v);
        snprintf(f.text, sizeof f.text, "T2"); /* the thread's name */
        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_WAIT, &f, &v), 0);
        assert_int_equal(v.n_rows, 1);
        assert_non_null(row_of(&v, 2));
        top_view_clear(&v);

        f = (TopFilter) {};
        cur.daemon = false;
        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_WAIT, &f, &v), 0);
        assert_int_equal(v.n_rows, 3); /* all but the kernel thread */
        top_view_clear(&v);
        top_snapshot_clear(&cur);
}

/* The view as lines: each class's totals, then its rows; scrolling stops
 * where the last line is at the bottom of the screen. */
static void test_lines(void **state) {
        const Spec a[] = { { 1, 1, 0, 0, "utility" }, { 2, 1, 0, 0, "utility" }, { 3, 1, 0, 0, "background" },
                           { 4, 1, 0, 0, "user-interactive" } };
        TopSnapshot cur = snapshot(1 * SEC, a, 4);
        TopView v;
        size_t c;

        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_WAIT, &every, &v), 0);
        assert_int_equal(top_view_n_lines(&v), 7);
        const struct {
                const char *class;
                pid_t tid; /* 0: the totals line */
        } want[] = { { "user-interactive", 0 }, { "user-interactive", 4 }, { "utility", 0 }, { "utility", 1 },
                     { "utility", 2 },          { "background", 0 },       { "background", 3 } };
        for (size_t i = 0; i < 7; i++) {
                const TopRow *r = top_view_line(&v, i, &c);
                assert_string_equal(v.classes[c].name, want[i].class);
                if (want[i].tid)
                        assert_int_equal(r->thread->tid, want[i].tid);
                else
                        assert_null(r);
        }
        assert_int_equal(top_scroll_clamp(0, 7, 3), 0);
        assert_int_equal(top_scroll_clamp(3, 7, 3), 3);
        assert_int_equal(top_scroll_clamp(100, 7, 3), 4); /* the last 3 lines */
        assert_int_equal(top_scroll_clamp(2, 7, 10), 0);  /* all fit */
        assert_int_equal(top_scroll_clamp(SIZE_MAX / 2, 0, 10), 0);
        top_view_clear(&v);
        top_snapshot_clear(&cur);
}

static TopLines lines_of(const TopView *v, size_t width) {
        TopLines l;
        assert_int_equal(top_format_lines(v, width, &l), 0);
        assert_int_equal(l.n, top_view_n_lines(v));
        return l;
}

/* The plain-text lines scripts read. */
static void test_format(void **state) {
        const Spec a[] = { { 42, 1, 0, 0, "background" } };
        const Spec b[] = { { 42, 1, 250, 12, "background" } };
        TopSnapshot prev = snapshot(0, a, 1), cur = snapshot(1 * SEC, b, 1);
        TopFilter f = { .text = "t4" };
        TopView v;
        char line[512];

        snprintf(cur.threads[0].rule, sizeof cur.threads[0].rule, "/etc/qos/apps.d/x.conf:5");
        snprintf(cur.threads[0].group, sizeof cur.threads[0].group, "qos.background");
        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &every, &v), 0);
        TopLines l = lines_of(&v, 0);
        assert_string_equal(l.columns, "    TID     PID COMM              CPU% WAIT(ms) STATE     GROUP          RULE");
        assert_string_equal(l.lines[0], "background: 1 thread              25.0     12.0");
        assert_string_equal(l.lines[1], "     42     100 t42               25.0     12.0 applied   qos.background "
                                        "/etc/qos/apps.d/x.conf:5");
        top_lines_clear(&l);
        top_format_title(&cur, &v, &every, TOP_SORT_CPU, 1.0, 1, line, sizeof line);
        assert_string_equal(line, "qosd: 1 of 1 threads managed; rules and groups from qosd");
        top_format_title(&cur, &v, &f, TOP_SORT_CPU, 1.0, 3, line, sizeof line);
        assert_string_equal(line, "showing 1: the threads qosd manages, no kernel threads, named like \"t4\"");
        cur.daemon = false;
        snprintf(cur.source, sizeof cur.source, "qosd not running");
        top_format_title(&cur, &v, &every, TOP_SORT_CPU, 1.0, 1, line, sizeof line);
        assert_non_null(strstr(line, "qosd not running"));
        top_format_title(&cur, &v, &every, TOP_SORT_CPU, 1.0, 3, line, sizeof line);
        assert_string_equal(line, "showing 1: every thread, kernel threads too");

        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

/* On a screen 80 columns wide no line is longer; the rule keeps its
 * file's name, and GROUP makes room for it; the columns before stay put. */
static void test_format_narrow(void **state) {
        const Spec a[] = { { 4194303, 1, 0, 0, "user-interactive" } };
        TopSnapshot cur = snapshot(1 * SEC, a, 1);
        TopView v;

        snprintf(cur.threads[0].comm, sizeof cur.threads[0].comm, "Renderer");
        snprintf(cur.threads[0].state, sizeof cur.threads[0].state, "held");
        snprintf(cur.threads[0].rule, sizeof cur.threads[0].rule, "/usr/share/qos/apps.d/firefox-esr.conf:9");
        snprintf(cur.threads[0].group, sizeof cur.threads[0].group, "qos.user-interactive");
        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_WAIT, &every, &v), 0);
        TopLines wide = lines_of(&v, 0), narrow = lines_of(&v, 80);
        assert_true(strlen(wide.lines[1]) > 80);
        assert_true(table_text_width(narrow.columns) <= 80);
        for (size_t i = 0; i < narrow.n; i++)
                assert_true(table_text_width(narrow.lines[i]) <= 80);
        assert_null(strstr(narrow.columns, "GROUP"));
        assert_non_null(strstr(narrow.lines[1], "firefox-esr.conf:9"));
        assert_non_null(strstr(narrow.lines[1], " held "));
        assert_memory_equal(narrow.lines[1], wide.lines[1], strlen("4194303     100 Renderer"));
        top_lines_clear(&wide);
        top_lines_clear(&narrow);
        top_view_clear(&v);
        top_snapshot_clear(&cur);
}

/* Names that others chose reach the terminal escaped: a thread's name with
 * escapes, as qosd sends it, and a rule file's name it escaped already. */
static void test_format_escaped(void **state) {
        const Spec a[] = { { 42, 1, 0, 0, "background" } };
        TopSnapshot prev = snapshot(0, a, 1), cur = snapshot(1 * SEC, a, 1);
        TopView v;

        snprintf(cur.threads[0].comm, sizeof cur.threads[0].comm, "\x1b]0;P\a");
        snprintf(cur.threads[0].rule, sizeof cur.threads[0].rule, "/home/u/x\\xff.conf:\x9b" "1");
        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &every, &v), 0);
        TopLines l = lines_of(&v, 0);
        assert_non_null(strstr(l.lines[1], " \\x1b]0;P\\x07 "));
        assert_non_null(strstr(l.lines[1], " /home/u/x\\xff.conf:\\x9b1"));
        assert_null(strchr(l.lines[1], '\x1b'));

        top_lines_clear(&l);
        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_deltas),     cmocka_unit_test(test_grouping),
                cmocka_unit_test(test_sorting),    cmocka_unit_test(test_exited),
                cmocka_unit_test(test_tid_reused), cmocka_unit_test(test_first_snapshot),
                cmocka_unit_test(test_filter),     cmocka_unit_test(test_lines),
                cmocka_unit_test(test_format),     cmocka_unit_test(test_format_narrow),
                cmocka_unit_test(test_format_escaped),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
