/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where rules are stored: the bump allocator (alignment, large objects,
 * strings, objects that stay where they are) and the numbered files of
 * their origins. */
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/rule-store.h"

static void test_alignment(void **state) {
        (void) state;
        Arena *a = arena_new();
        assert_non_null(a);
        for (size_t align = 1; align <= alignof(max_align_t); align *= 2) {
                char *odd = arena_alloc(a, 3, 1);
                assert_non_null(odd);
                void *p = arena_alloc(a, 24, align);
                assert_non_null(p);
                assert_int_equal((uintptr_t) p % align, 0);
                assert_true((char *) p >= odd + 3);
        }
        assert_null(arena_alloc(a, 8, 3));
        assert_null(arena_alloc(a, 8, 2 * alignof(max_align_t)));
        arena_free(a);
}

/* Objects stay where they are: earlier ones are intact after many more. */
static void test_many_and_large(void **state) {
        (void) state;
        Arena *a = arena_new();
        char *first = arena_strdup(a, "first");
        char *big = arena_alloc(a, 100 * 1024, alignof(max_align_t));
        assert_non_null(big);
        memset(big, 'x', 100 * 1024);
        char *after = arena_strdup(a, "after the big one");
        char *names[5000];
        for (int i = 0; i < 5000; i++) {
                char buf[32];
                snprintf(buf, sizeof buf, "name-%d", i);
                names[i] = arena_strdup(a, buf);
                assert_non_null(names[i]);
        }
        assert_string_equal(first, "first");
        assert_string_equal(after, "after the big one");
        assert_int_equal(big[100 * 1024 - 1], 'x');
        for (int i = 0; i < 5000; i++) {
                char buf[32];
                snprintf(buf, sizeof buf, "name-%d", i);
                assert_string_equal(names[i], buf);
        }
        /* The big object has its own block; the strings share a few. */
        size_t fp = arena_footprint(a);
        assert_true(fp >= 100 * 1024 + 5000 * 8);
        assert_true(fp < 100 * 1024 + 5000 * 12 + 3 * 32 * 1024);
        arena_free(a);
}

static void test_strndup(void **state) {
        (void) state;
        Arena *a = arena_new();
        assert_string_equal(arena_strndup(a, "firefox.conf", 7), "firefox");
        assert_string_equal(arena_strndup(a, "ab", 10), "ab");
        assert_string_equal(arena_strdup(a, ""), "");
        assert_null(arena_free(a));
        assert_null(arena_free(NULL));
}

/* A file keeps its number while its lines come in a row; a path seen
 * before gets a new number but the same path back. */
static void test_source_lines(void **state) {
        (void) state;
        static const char a[] = "/etc/qos/apps.d/a.conf", b[] = "/etc/qos/apps.d/a.conf.d/x.conf";
        RuleStore *s = rule_store_new();
        SourceLine l1, l2, l3, l4, none;
        assert_non_null(s);
        assert_int_equal(rule_store_line(s, (RuleOrigin) { a, 3 }, &l1), 0);
        assert_int_equal(rule_store_line(s, (RuleOrigin) { a, 7 }, &l2), 0);
        assert_int_equal(rule_store_line(s, (RuleOrigin) { b, 1 }, &l3), 0);
        assert_int_equal(rule_store_line(s, (RuleOrigin) { a, 0 }, &l4), 0);
        assert_int_equal(rule_store_line(s, (RuleOrigin) { NULL, 0 }, &none), 0);
        assert_int_equal(l1.file, l2.file);
        assert_int_not_equal(l2.file, l3.file);
        assert_int_equal(s->n_files, 3);
        assert_ptr_equal(rule_store_origin(s, l2).path, a);
        assert_int_equal(rule_store_origin(s, l2).line, 7);
        assert_ptr_equal(rule_store_origin(s, l3).path, b);
        assert_ptr_equal(rule_store_origin(s, l4).path, a);
        assert_int_equal(rule_store_origin(s, l4).line, 0);
        /* None, as a zeroed setting holds it, and a number never given. */
        assert_null(rule_store_origin(s, none).path);
        assert_null(rule_store_origin(s, (SourceLine) {}).path);
        assert_null(rule_store_origin(s, (SourceLine) { 99, 1 }).path);
        assert_null(rule_store_free(s));
}

/* Many files: the table grows and every number still gives its path. */
static void test_many_files(void **state) {
        (void) state;
        enum { N = 5000 };
        static char paths[N][16];
        SourceLine lines[N];
        RuleStore *s = rule_store_new();
        assert_non_null(s);
        for (unsigned i = 0; i < N; i++) {
                snprintf(paths[i], sizeof paths[i], "f%u.conf", i);
                assert_int_equal(rule_store_line(s, (RuleOrigin) { paths[i], i }, &lines[i]), 0);
        }
        for (unsigned i = 0; i < N; i++) {
                RuleOrigin o = rule_store_origin(s, lines[i]);
                assert_ptr_equal(o.path, paths[i]);
                assert_int_equal(o.line, i);
        }
        rule_store_free(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_alignment),
                cmocka_unit_test(test_many_and_large),
                cmocka_unit_test(test_strndup),
                cmocka_unit_test(test_source_lines),
                cmocka_unit_test(test_many_files),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
