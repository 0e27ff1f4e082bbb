/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/rate-limit.h"

static void test_burst_then_rate(void **state) {
        RateLimiter *l = malloc(sizeof *l);
        rate_limit_init(l, 20, 50);
        uint64_t t = 1000000;
        for (int i = 0; i < 50; i++)
                assert_true(rate_limit_take(l, 7, t));
        assert_false(rate_limit_take(l, 7, t));
        /* Another caller has its own bucket. */
        assert_true(rate_limit_take(l, 8, t));
        /* 20 per second: one token every 50 ms. */
        assert_false(rate_limit_take(l, 7, t + 40000));
        assert_true(rate_limit_take(l, 7, t + 51000));
        assert_false(rate_limit_take(l, 7, t + 52000));
        /* A long pause refills to the burst, not beyond. */
        t += 3600ULL * 1000000;
        for (int i = 0; i < 50; i++)
                assert_true(rate_limit_take(l, 7, t));
        assert_false(rate_limit_take(l, 7, t));
        /* A clock that goes back takes nothing and gives nothing. */
        assert_false(rate_limit_take(l, 7, t - 1000000));
        free(l);
}

static void test_many_callers(void **state) {
        RateLimiter *l = malloc(sizeof *l);
        rate_limit_init(l, 1, 2);
        /* More callers than slots: each still gets an answer, and a caller
         * that is still busy is not the one evicted first. */
        for (uint64_t k = 1; k <= 4 * RATE_LIMIT_SLOTS; k++)
                assert_true(rate_limit_take(l, k, k));
        uint64_t now = 10 * RATE_LIMIT_SLOTS;
        assert_true(rate_limit_take(l, 1u << 31, now));
        assert_true(rate_limit_take(l, 1u << 31, now));
        assert_false(rate_limit_take(l, 1u << 31, now));
        free(l);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_burst_then_rate),
                cmocka_unit_test(test_many_callers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
