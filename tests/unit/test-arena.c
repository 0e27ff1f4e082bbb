/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rule set's bump allocator: alignment, large objects, strings, and
 * objects that stay where they are. */
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"

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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_alignment),
                cmocka_unit_test(test_many_and_large),
                cmocka_unit_test(test_strndup),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
