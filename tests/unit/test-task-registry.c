/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "state/task-registry.h"

/* Whether a process has managed threads follows every add, replacement
 * and removal: a new thread of a process with none is looked at no further. */
static void test_process_count(void **state) {
        TaskRegistry r = { PID_MAP_INIT, PID_MAP_INIT };
        TaskEntry *e;

        assert_false(registry_has_process(&r, 100));
        assert_int_equal(registry_add(&r, 100, 100, 1, &e), 0);
        assert_int_equal(registry_add(&r, 101, 100, 2, &e), 0);
        assert_true(registry_has_process(&r, 100));
        registry_remove(&r, 100);
        assert_true(registry_has_process(&r, 100));
        registry_remove(&r, 101);
        assert_false(registry_has_process(&r, 100));
        registry_remove(&r, 101); /* twice: no count below zero */
        assert_false(registry_has_process(&r, 100));

        /* TID 102 reused by another process: counted there only. */
        assert_int_equal(registry_add(&r, 102, 100, 3, &e), 0);
        assert_int_equal(registry_add(&r, 102, 200, 4, &e), 0);
        assert_false(registry_has_process(&r, 100));
        assert_true(registry_has_process(&r, 200));
        assert_int_equal(registry_size(&r), 1);

        /* Recovered from the state file, its process not known: kept. */
        assert_int_equal(registry_add(&r, 103, 0, 5, &e), 0);
        assert_non_null(registry_get(&r, 103));
        registry_remove(&r, 103);

        registry_clear(&r);
        assert_false(registry_has_process(&r, 200));
        (void) state;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_process_count),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
