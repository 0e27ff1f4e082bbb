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

#include "cli/top-format.h"
#include "cli/top-model.h"

#define MS 1000000ULL
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

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_CPU, &v), 0);
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

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &v), 0);
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

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &v), 0);
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

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &v), 0);
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

        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &v), 0);
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

        assert_int_equal(top_view_build(NULL, &cur, TOP_SORT_CPU, &v), 0);
        assert_int_equal(v.interval_ns, 0);
        assert_float_equal(v.rows[0].cpu_pct, 0.0, 0);
        assert_int_equal(v.rows[0].wait_ns, 0);
        top_view_clear(&v);
        top_snapshot_clear(&cur);

        TopSnapshot empty = snapshot(0, NULL, 0);
        assert_int_equal(top_view_build(NULL, &empty, TOP_SORT_CPU, &v), 0);
        assert_int_equal(v.n_rows, 0);
        assert_int_equal(v.n_classes, 0);
        top_view_clear(&v);
        top_snapshot_clear(&empty);
}

/* Lines are shared out a row at a time: a class with many threads does
 * not push the others off the screen. */
static void test_fit(void **state) {
        TopClassTotal classes[] = { { .name = "utility", .n = 100 }, { .name = "background", .n = 2 },
                                    { .name = "custom", .n = 3 } };
        TopView v = { .classes = classes, .n_classes = 3 };
        size_t shown[3];

        top_view_fit(&v, 10, shown); /* 3 totals lines, 7 rows */
        assert_int_equal(shown[0], 3);
        assert_int_equal(shown[1], 2);
        assert_int_equal(shown[2], 2);
        top_view_fit(&v, 200, shown);
        assert_int_equal(shown[0], 100);
        assert_int_equal(shown[1], 2);
        assert_int_equal(shown[2], 3);
        top_view_fit(&v, 2, shown); /* not even the totals fit */
        assert_int_equal(shown[0] + shown[1] + shown[2], 0);
}

/* The plain-text lines scripts read. */
static void test_format(void **state) {
        const Spec a[] = { { 42, 1, 0, 0, "background" } };
        const Spec b[] = { { 42, 1, 250, 12, "background" } };
        TopSnapshot prev = snapshot(0, a, 1), cur = snapshot(1 * SEC, b, 1);
        TopView v;
        char line[512];

        snprintf(cur.threads[0].rule, sizeof cur.threads[0].rule, "/etc/qos/apps.d/x.conf:5");
        snprintf(cur.threads[0].group, sizeof cur.threads[0].group, "qos.background");
        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &v), 0);
        top_format_row(&v.rows[0], line, sizeof line);
        assert_string_equal(line, "     42     100 t42                25.0      12.0 applied   qos.background       "
                                  "/etc/qos/apps.d/x.conf:5");
        top_format_class(&v.classes[0], 1, line, sizeof line);
        assert_string_equal(line, "background: 1 thread               25.0      12.0");
        top_format_class(&v.classes[0], 0, line, sizeof line);
        assert_non_null(strstr(line, "(0 shown)"));
        top_format_title(&cur, &v, TOP_SORT_CPU, 1.0, 1, line, sizeof line);
        assert_string_equal(line, "qosd: 1 of 1 threads managed; rules and groups from qosd");
        cur.daemon = false;
        snprintf(cur.source, sizeof cur.source, "qosd not running");
        top_format_title(&cur, &v, TOP_SORT_CPU, 1.0, 1, line, sizeof line);
        assert_non_null(strstr(line, "qosd not running"));

        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

/* Names that others chose reach the terminal escaped: a thread's name with
 * escapes, as qosd sends it, and a rule file's name it escaped already. */
static void test_format_escaped(void **state) {
        const Spec a[] = { { 42, 1, 0, 0, "background" } };
        TopSnapshot prev = snapshot(0, a, 1), cur = snapshot(1 * SEC, a, 1);
        TopView v;
        char line[512];

        snprintf(cur.threads[0].comm, sizeof cur.threads[0].comm, "\x1b]0;PWNED\a\x1b[2J");
        snprintf(cur.threads[0].rule, sizeof cur.threads[0].rule, "/home/u/x\\xff.conf:\x9b" "1");
        assert_int_equal(top_view_build(&prev, &cur, TOP_SORT_WAIT, &v), 0);
        top_format_row(&v.rows[0], line, sizeof line);
        assert_non_null(strstr(line, " \\x1b]0;PWNED\\x07\\x1b[2J "));
        assert_non_null(strstr(line, " /home/u/x\\xff.conf:\\x9b1"));
        assert_null(strchr(line, '\x1b'));

        top_view_clear(&v);
        top_snapshot_clear(&prev);
        top_snapshot_clear(&cur);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_deltas),     cmocka_unit_test(test_grouping),
                cmocka_unit_test(test_sorting),    cmocka_unit_test(test_exited),
                cmocka_unit_test(test_tid_reused), cmocka_unit_test(test_first_snapshot),
                cmocka_unit_test(test_fit),        cmocka_unit_test(test_format),
                cmocka_unit_test(test_format_escaped),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
