/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl's tables (qosctl ps): columns as wide as their cells, and on a
 * terminal no line past its width, the columns still aligned. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/table.h"

enum { PID, COMM, CLASS, STATE, RULE, LOAN, KNOBS, N };

static const TableColumn columns[N] = {
        [PID] = { "PID", .right = true },
        [COMM] = { "COMM", .cut = TABLE_CUT_END, .min = 8, .order = 3 },
        [CLASS] = { "CLASS" },
        [STATE] = { "STATE" },
        [RULE] = { "RULE", .cut = TABLE_CUT_PATH, .min = 16, .order = 1 },
        [LOAN] = { "LOAN", .hide_blank = true },
        [KNOBS] = { "KNOBS", .cut = TABLE_CUT_END, .min = 24, .drop = true, .order = 2 },
};

static const char *const rows[][N] = {
        { "4242", "firefox-esr", "utility", "held", "/etc/qos/apps.d/firefox.conf:9", "-",
          "policy=normal nice=0 slice=2.80ms ioprio=be/4 timer-slack=50.00us group=autogroup" },
        { "17", "\\x1b]0;PWNED\\x07", "user-interactive", "requested",
          "requested user-interactive by pid 17 uid 1000, granted", "-",
          "policy=normal nice=-10 slice=0.50ms ioprio=be/0 timer-slack=50.00us" },
        { "9", "kworker", "custom", "unmanaged", "-", "-", "policy=normal nice=-20" },
};

static char *print(const Table *t, size_t width) {
        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        table_print(t, f, width);
        assert_int_equal(fclose(f), 0);
        return text;
}

static void fill(Table *t) {
        table_init(t, columns, N);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
                assert_int_equal(table_add_row(t, rows[i]), 0);
}

/* The line's n-th line, in a buffer of the caller's. */
static const char *line_of(const char *text, size_t n, char *buf, size_t size) {
        while (n-- > 0) {
                text = strchr(text, '\n');
                assert_non_null(text);
                text++;
        }
        size_t len = strcspn(text, "\n");
        assert_true(len < size);
        memcpy(buf, text, len);
        buf[len] = '\0';
        return buf;
}

/* Where the cell of a column starts: the header's position (ASCII headers
 * and, in these rows, ASCII text before it). */
static size_t column_at(const char *header, const char *name) {
        const char *p = strstr(header, name);
        assert_non_null(p);
        return (size_t) (p - header);
}

static void test_pipe(void **state) {
        (void) state;
        Table t;
        fill(&t);
        char *text = print(&t, 0), buf[512];
        /* Full width: every cell whole, LOAN kept for scripts. */
        assert_non_null(strstr(text, "/etc/qos/apps.d/firefox.conf:9"));
        assert_non_null(strstr(text, "group=autogroup\n"));
        const char *h = line_of(text, 0, buf, sizeof buf);
        assert_string_equal(h, " PID COMM             CLASS            STATE     RULE                                                   LOAN KNOBS");
        assert_string_equal(line_of(text, 3, buf, sizeof buf),
                            "   9 kworker          custom           unmanaged -                                                      -    policy=normal nice=-20");
        free(text);
        table_clear(&t);
}

static void check_fits(const char *text, size_t width) {
        char buf[512], header[512];
        line_of(text, 0, header, sizeof header);
        size_t state = column_at(header, "STATE");
        for (size_t i = 0; i < 4; i++) {
                const char *l = line_of(text, i, buf, sizeof buf);
                assert_true(table_text_width(l) <= width);
                assert_true(l[strlen(l) - 1] != ' ');
                if (i > 0) /* aligned: STATE's cell under its header */
                        assert_true(strncmp(l + state, rows[i - 1][STATE], strlen(rows[i - 1][STATE])) == 0);
        }
}

static void test_terminal_80(void **state) {
        (void) state;
        Table t;
        fill(&t);
        char *text = print(&t, 80), buf[512];
        check_fits(text, 80);
        const char *h = line_of(text, 0, buf, sizeof buf);
        /* No loans: no LOAN; too narrow for the knobs: none. */
        assert_null(strstr(h, "LOAN"));
        assert_null(strstr(h, "KNOBS"));
        /* The rule keeps its end, file:line. */
        assert_non_null(strstr(line_of(text, 1, buf, sizeof buf), "firefox.conf:9"));
        free(text);
        table_clear(&t);
}

static void test_terminal_120(void **state) {
        (void) state;
        Table t;
        fill(&t);
        char *text = print(&t, 120), buf[512];
        check_fits(text, 120);
        const char *l = line_of(text, 1, buf, sizeof buf);
        /* At 120 columns the rule keeps its :line end and the knobs show,
         * cut with an ellipsis ("..." where no UTF-8 locale is installed,
         * two columns more than "\u2026": "...irefox.conf:9" then). */
        if (!strstr(l, ".conf:9 policy=normal"))
                fail_msg("the rule's end or the knobs' start is missing at 120 columns: '%s'", l);
        if (strstr(l, "policy=") && !strstr(l, "\u2026") && !strstr(l, "..."))
                fail_msg("the knobs are cut without an ellipsis: '%s'", l);
        free(text);
        table_clear(&t);
}

static void test_terminal_tiny(void **state) {
        (void) state;
        Table t;
        fill(&t);
        char *text = print(&t, 30), buf[512];
        for (size_t i = 0; i < 4; i++)
                assert_true(table_text_width(line_of(text, i, buf, sizeof buf)) <= 30);
        free(text);
        table_clear(&t);
}

static void test_loan_shown(void **state) {
        (void) state;
        Table t;
        fill(&t);
        const char *loaned[N] = { "5", "w", "utility", "applied", "-", "stalled:6", "policy=normal" };
        assert_int_equal(table_add_row(&t, loaned), 0);
        char *text = print(&t, 200), buf[512];
        assert_non_null(strstr(line_of(text, 0, buf, sizeof buf), "LOAN"));
        free(text);
        table_clear(&t);
}

static void test_width(void **state) {
        (void) state;
        assert_int_equal(table_text_width(""), 0);
        assert_int_equal(table_text_width("abc"), 3);
        assert_int_equal(table_text_width("\\x1b"), 4);
}

int main(void) {
        /* The widths and the ellipsis of a UTF-8 terminal, where there is one. */
        setenv("LC_ALL", "C.UTF-8", 1);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pipe),         cmocka_unit_test(test_terminal_80),
                cmocka_unit_test(test_terminal_120), cmocka_unit_test(test_terminal_tiny),
                cmocka_unit_test(test_loan_shown),   cmocka_unit_test(test_width),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
