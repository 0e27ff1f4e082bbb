/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/glob-index.h"

static void test_literal_prefix(void **state) {
        assert_int_equal(glob_literal_prefix("firefox"), 7);
        assert_int_equal(glob_literal_prefix("ui-*"), 3);
        assert_int_equal(glob_literal_prefix("*ui"), 0);
        assert_int_equal(glob_literal_prefix("a?c"), 1);
        assert_int_equal(glob_literal_prefix("ab[cd]"), 2);
        /* An escaped wildcard is a literal character. */
        assert_int_equal(glob_literal_prefix("a\\*b*"), 3);
        assert_true(glob_is_pattern("x*"));
        assert_true(glob_is_pattern("[ab]"));
        assert_false(glob_is_pattern("/usr/bin/foo"));
}

static void test_match(void **state) {
        assert_true(glob_match("foo", false, "foo"));
        assert_false(glob_match("foo", false, "foobar"));
        assert_false(glob_match("foo*", false, "foobar")); /* plain: no wildcards */
        assert_true(glob_match("foo*", true, "foobar"));
        /* A star crosses slashes, so that a pattern ending in a slash and a star means everything below. */
        assert_true(glob_match("/opt/*", true, "/opt/a/b/c"));
        assert_false(glob_match("foo", false, NULL));
}

typedef struct Seen {
        uint32_t values[16];
        size_t n;
        size_t stop_after;
} Seen;

static int collect(uint32_t value, uint32_t aux, void *userdata) {
        Seen *s = userdata;
        assert_true(s->n < 16);
        assert_int_equal(aux, value * 10);
        s->values[s->n++] = value;
        return s->stop_after && s->n >= s->stop_after ? 1 : 0;
}

static void add(GlobIndex *gi, const char *pattern, uint32_t value) {
        assert_int_equal(glob_index_add(gi, pattern, value, value * 10), 0);
}

static void test_lookup_order(void **state) {
        GlobIndex gi = {};
        add(&gi, "*", 0);
        add(&gi, "ui-*", 1);
        add(&gi, "ui-main", 2);
        add(&gi, "u*", 3);
        add(&gi, "ui-main", 4);   /* a second rule with the same name */
        add(&gi, "ui-ma*", 5);
        add(&gi, "other", 6);
        add(&gi, "ui-*", 7);      /* same glob, later: after 1 */
        assert_int_equal(glob_index_build(&gi), 0);

        Seen s = {};
        assert_int_equal(glob_index_lookup(&gi, "ui-main", collect, &s), 0);
        /* Exact names first in insertion order, then globs by literal
         * prefix, equal prefixes in insertion order. */
        uint32_t expected[] = { 2, 4, 5, 1, 7, 3, 0 };
        assert_int_equal(s.n, sizeof expected / sizeof expected[0]);
        for (size_t i = 0; i < s.n; i++)
                assert_int_equal(s.values[i], expected[i]);

        Seen first = { .stop_after = 1 };
        assert_int_equal(glob_index_lookup(&gi, "ui-main", collect, &first), 1);
        assert_int_equal(first.n, 1);
        assert_int_equal(first.values[0], 2);

        Seen none = {};
        assert_int_equal(glob_index_lookup(&gi, NULL, collect, &none), 0);
        assert_int_equal(none.n, 0);
        glob_index_done(&gi);
}

static void test_empty_and_globs_only(void **state) {
        GlobIndex gi = {};
        Seen s = {};
        assert_int_equal(glob_index_build(&gi), 0);
        assert_int_equal(glob_index_lookup(&gi, "x", collect, &s), 0);
        assert_int_equal(s.n, 0);
        add(&gi, "x*", 1);
        glob_index_done(&gi);

        GlobIndex g2 = {};
        add(&g2, "x*", 1);
        assert_int_equal(glob_index_build(&g2), 0);
        assert_int_equal(glob_index_lookup(&g2, "xy", collect, &s), 0);
        assert_int_equal(s.n, 1);
        glob_index_done(&g2);
}

static int count(uint32_t value, uint32_t aux, void *userdata) {
        uint32_t *want = userdata;
        assert_int_equal(value, *want);
        *want = UINT32_MAX;
        return 0;
}

/* Many names: every one found, and only it (probe chains, growth). */
static void test_many_names(void **state) {
        enum { N = 5000 };
        GlobIndex gi = {};
        char (*names)[16] = calloc(N, sizeof *names);
        assert_non_null(names);
        for (uint32_t i = 0; i < N; i++) {
                snprintf(names[i], sizeof names[i], "app%u", i);
                assert_int_equal(glob_index_add(&gi, names[i], i, 0), 0);
        }
        assert_int_equal(glob_index_build(&gi), 0);
        assert_true(gi.n_slots >= 2 * N);
        for (uint32_t i = 0; i < N; i++) {
                uint32_t want = i;
                assert_int_equal(glob_index_lookup(&gi, names[i], count, &want), 0);
                assert_int_equal(want, UINT32_MAX);
        }
        uint32_t want = 12345678;
        assert_int_equal(glob_index_lookup(&gi, "app", count, &want), 0);
        assert_int_equal(want, 12345678);
        glob_index_done(&gi);
        free(names);
}

typedef struct Order {
        uint32_t v[64];
        size_t n;
} Order;

static int record(uint32_t value, uint32_t aux, void *userdata) {
        Order *o = userdata;
        o->v[o->n++] = value;
        return 0;
}

/* Long glob lists are grouped by first character; the order they are
 * reported in must stay the one of the plain list. */
static void test_grouped_globs_keep_order(void **state) {
        static const char *const patterns[] = {
                "a*", "ab*", "abc*", "*c", "?bc", "a?c", "b*", "[ab]bc", "\\*bc", "abc?", "*", "ac*",
        };
        enum { N = 48 };
        size_t n_patterns = sizeof patterns / sizeof patterns[0];
        GlobIndex gi = {};
        for (uint32_t i = 0; i < N; i++)
                assert_int_equal(glob_index_add(&gi, patterns[i % n_patterns], i, 0), 0);
        assert_int_equal(glob_index_build(&gi), 0);
        assert_non_null(gi.by_first);

        static const char *const names[] = { "abc", "abcd", "bbc", "xc", "", "ac", "*bc" };
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
                Order got = {}, want = {};
                assert_int_equal(glob_index_lookup(&gi, names[k], record, &got), 0);
                /* The reference: every matching glob, longest literal prefix
                 * first, then insertion order. */
                for (size_t prefix = 8; prefix-- > 0;)
                        for (uint32_t i = 0; i < N; i++) {
                                const char *p = patterns[i % n_patterns];
                                if (glob_literal_prefix(p) == prefix && glob_match(p, true, names[k]))
                                        want.v[want.n++] = i;
                        }
                assert_int_equal(got.n, want.n);
                for (size_t i = 0; i < got.n; i++)
                        assert_int_equal(got.v[i], want.v[i]);
        }
        glob_index_done(&gi);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_literal_prefix),
                cmocka_unit_test(test_match),
                cmocka_unit_test(test_lookup_order),
                cmocka_unit_test(test_empty_and_globs_only),
                cmocka_unit_test(test_many_names),
                cmocka_unit_test(test_grouped_globs_keep_order),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
