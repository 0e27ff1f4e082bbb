/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/pid-map.h"

#define V(k) ((void *) (uintptr_t) (k))

static void test_put_get_remove(void **state) {
        PidMap m = PID_MAP_INIT;
        assert_null(pid_map_get(&m, 1));
        assert_int_equal(pid_map_put(&m, 0, V(1)), -EINVAL);
        assert_int_equal(pid_map_put(&m, 42, V(1)), 0);
        assert_int_equal(pid_map_put(&m, 42, V(2)), 0); /* replace */
        assert_int_equal(pid_map_size(&m), 1);
        assert_ptr_equal(pid_map_get(&m, 42), V(2));
        assert_ptr_equal(pid_map_remove(&m, 42), V(2));
        assert_null(pid_map_remove(&m, 42));
        assert_int_equal(pid_map_size(&m), 0);
        pid_map_clear(&m);
}

/* Against a plain array as the model: inserts, removals in probe runs
 * (backward shift), growth, iteration. */
static void test_against_model(void **state) {
        enum { N = 40000 };
        static void *model[N];
        PidMap m = PID_MAP_INIT;
        unsigned seed = 1;

        for (int i = 0; i < 200000; i++) {
                seed = seed * 1103515245 + 12345;
                pid_t k = (pid_t) (seed % (N - 1)) + 1;
                if ((seed >> 16) % 3 == 0) {
                        assert_ptr_equal(pid_map_remove(&m, k), model[k]);
                        model[k] = NULL;
                } else {
                        assert_int_equal(pid_map_put(&m, k, V(i + 1)), 0);
                        model[k] = V(i + 1);
                }
        }
        size_t n = 0;
        for (pid_t k = 1; k < N; k++) {
                assert_ptr_equal(pid_map_get(&m, k), model[k]);
                n += model[k] != NULL;
        }
        assert_int_equal(pid_map_size(&m), n);
        size_t it = 0, seen = 0;
        pid_t k;
        void *v;
        while (pid_map_next(&m, &it, &k, &v)) {
                assert_ptr_equal(model[k], v);
                seen++;
        }
        assert_int_equal(seen, n);
        pid_map_clear(&m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_put_get_remove),
                cmocka_unit_test(test_against_model),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
