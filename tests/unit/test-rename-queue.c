/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rename queue without a daemon: renames coalesce per process and per
 * thread, too many make the whole process, and a process that renames in a
 * loop waits for its budget while others do not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "state/rename-queue.h"

#define SEC 1000000ULL

static void test_coalesce(void **state) {
        RenameQueue q = {};
        RenameWork w;
        uint64_t wake;

        for (int i = 0; i < 100; i++) {
                assert_int_equal(rename_queue_note(&q, 100, 7, 101), 0);
                assert_int_equal(rename_queue_note(&q, 100, 7, 102), 0);
        }
        assert_int_equal(rename_queue_note(&q, 200, 9, 201), 0);
        assert_true(rename_queue_take(&q, SEC, &w, &wake));
        assert_int_equal(w.tgid, 100);
        assert_int_equal(w.start_time, 7);
        assert_false(w.whole);
        assert_int_equal(w.n_tids, 2);
        assert_true(rename_queue_take(&q, SEC, &w, &wake));
        assert_int_equal(w.tgid, 200);
        assert_false(rename_queue_take(&q, SEC, &w, &wake));
        assert_int_equal(wake, 0);
        assert_false(rename_queue_has_work(&q));

        /* The main thread is a thread like the others (the process's rules
         * never match a thread's name); too many threads: the whole process. */
        assert_int_equal(rename_queue_note(&q, 100, 7, 101), 0);
        assert_int_equal(rename_queue_note(&q, 100, 7, 100), 0);
        assert_true(rename_queue_take(&q, SEC, &w, &wake));
        assert_false(w.whole);
        assert_int_equal(w.n_tids, 2);
        for (pid_t t = 0; t <= RENAME_TIDS_MAX; t++)
                assert_int_equal(rename_queue_note(&q, 100, 7, 1000 + t), 0);
        assert_true(rename_queue_take(&q, SEC, &w, &wake));
        assert_true(w.whole);
        rename_queue_clear(&q);
}

static void test_budget(void **state) {
        RenameQueue q = {};
        RenameWork w;
        uint64_t wake, now = SEC;

        /* A process of 1,000 threads renaming them all in a loop. */
        int runs = 0;
        for (int i = 0; i < 1000; i++, now += 1000) {
                for (pid_t t = 0; t <= RENAME_TIDS_MAX; t++)
                        assert_int_equal(rename_queue_note(&q, 100, 7, 1000 + t), 0);
                if (rename_queue_take(&q, now, &w, &wake)) {
                        runs++;
                        rename_queue_charge(&q, 100, 1000, now);
                }
        }
        /* One second: the burst and a second's rate, in thousands of threads. */
        assert_true(runs >= (int) (RENAME_BURST / 1000));
        assert_true(runs <= (int) ((RENAME_BURST + RENAME_RATE) / 1000) + 1);

        /* In debt: it says when; another process goes first meanwhile. */
        assert_int_equal(rename_queue_note(&q, 100, 7, 1000), 0);
        assert_int_equal(rename_queue_note(&q, 300, 5, 301), 0);
        assert_true(rename_queue_take(&q, now, &w, &wake));
        assert_int_equal(w.tgid, 300);
        if (!rename_queue_take(&q, now, &w, &wake)) {
                assert_true(wake > now);
                assert_true(wake <= now + (uint64_t) (1000 / RENAME_RATE * SEC) + 1); /* one charge repaid */
                assert_true(rename_queue_take(&q, wake, &w, &wake));
        }
        assert_int_equal(w.tgid, 100);
        rename_queue_clear(&q);
}

static void test_reused_pid_and_exit(void **state) {
        RenameQueue q = {};
        RenameWork w;
        uint64_t wake;

        assert_int_equal(rename_queue_note(&q, 100, 7, 101), 0);
        rename_queue_charge(&q, 100, 1000000, SEC);
        /* Another process under the same PID: its own budget, the old work gone. */
        assert_int_equal(rename_queue_note(&q, 100, 8, 101), 0);
        assert_true(rename_queue_take(&q, SEC, &w, &wake));
        assert_int_equal(w.start_time, 8);
        assert_false(w.whole);
        assert_int_equal(w.n_tids, 1);

        assert_int_equal(rename_queue_note(&q, 100, 8, 101), 0);
        rename_queue_forget(&q, 100);
        assert_false(rename_queue_has_work(&q));
        assert_int_equal(rename_queue_size(&q), 0);

        PidMap alive = {};
        assert_int_equal(pid_map_put(&alive, 200, &alive), 0);
        assert_int_equal(rename_queue_note(&q, 200, 1, 201), 0);
        assert_int_equal(rename_queue_note(&q, 300, 1, 301), 0);
        rename_queue_keep(&q, &alive);
        assert_int_equal(rename_queue_size(&q), 1);
        assert_true(rename_queue_take(&q, SEC, &w, &wake));
        assert_int_equal(w.tgid, 200);
        pid_map_clear(&alive);
        rename_queue_clear(&q);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_coalesce),
                cmocka_unit_test(test_budget),
                cmocka_unit_test(test_reused_pid_and_exit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
