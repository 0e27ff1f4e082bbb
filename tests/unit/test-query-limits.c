/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "state/query-limits.h"

static int take_all(QueryLimits *q, QueryKind kind, uid_t uid, uint64_t now, int n) {
        int granted = 0;
        for (int i = 0; i < n; i++)
                granted += query_limits_take(q, kind, uid, now);
        return granted;
}

static void test_per_user_and_method(void **state) {
        QueryLimits *q = calloc(1, sizeof *q);
        uint64_t t = 1000000;
        int list_burst = (int) query_burst(QUERY_LIST_TASKS);
        int explain_burst = (int) query_burst(QUERY_EXPLAIN);

        /* The burst, then nothing: a loop is refused and counted. */
        assert_int_equal(take_all(q, QUERY_LIST_TASKS, 1000, t, 1000), list_burst);
        assert_int_equal(q->limited, 1000 - list_burst);
        /* Another method of the same user has its own bucket... */
        assert_int_equal(take_all(q, QUERY_EXPLAIN, 1000, t, 1000), explain_burst);
        assert_int_equal(take_all(q, QUERY_GET_PROFILE, 1000, t, 1000), (int) query_burst(QUERY_GET_PROFILE));
        /* ...and so has another user: one user's flood leaves others alone. */
        assert_int_equal(take_all(q, QUERY_LIST_TASKS, 1001, t, 1), 1);
        /* Root is never limited, nor counted. */
        uint64_t before = q->limited;
        assert_int_equal(take_all(q, QUERY_EXPLAIN, 0, t, 100000), 100000);
        assert_int_equal(q->limited, before);
        /* The rate refills: one second gives `rate` calls back. */
        assert_int_equal(take_all(q, QUERY_LIST_TASKS, 1000, t + 1000000, 100), (int) query_rate(QUERY_LIST_TASKS));
        free(q);
}

/* ListTasks pays by the threads it lists: answered while the budget is
 * above 0, so a list of 6,000 threads is answered, and the next ones wait
 * until the rows are paid back. */
static void test_rows(void **state) {
        QueryLimits *q = calloc(1, sizeof *q);
        uint64_t t = 1000000;
        int answered = 0;

        for (int i = 0; i < 100; i++)
                if (query_limits_rows_ready(q, 1000, t)) {
                        answered++;
                        query_limits_rows_charge(q, 1000, 6000, t);
                }
        assert_int_equal(answered, (int) ((QUERY_ROWS_BURST + 5999) / 6000));
        assert_int_equal(q->limited, 100 - answered);
        /* Paid back at QUERY_ROWS_PER_SEC. */
        double debt = answered * 6000.0 - QUERY_ROWS_BURST;
        uint64_t later = t + (uint64_t) (debt / QUERY_ROWS_PER_SEC * 1e6) + 1000;
        assert_true(query_limits_rows_ready(q, 1000, later));
        /* Another user and root are not held by it. */
        assert_true(query_limits_rows_ready(q, 1001, t));
        query_limits_rows_charge(q, 0, 1000000, t);
        assert_true(query_limits_rows_ready(q, 0, t));
        free(q);
}

static void test_names(void **state) {
        assert_string_equal(query_name(QUERY_LIST_TASKS), "ListTasks");
        assert_string_equal(query_name(QUERY_EXPLAIN), "Explain");
        assert_string_equal(query_name(QUERY_GET_PROFILE), "GetProfile");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_per_user_and_method),
                cmocka_unit_test(test_rows),
                cmocka_unit_test(test_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
