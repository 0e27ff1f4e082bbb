/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "state-file.h"

static TaskAttr attr(int policy, int nice) {
        return (TaskAttr) { .policy = policy, .nice = nice, .slice_ns = 8000000, .uclamp_max = 1024,
                            .ioprio = 3 << 13, .timer_slack_ns = 50000 };
}

static void test_record_round_trip(void **state) {
        StateRecord r = { 1234, 987654321, QCLASS_BACKGROUND, attr(0, 4), attr(5, 19) }, back;
        char line[256];
        int forget;
        r.set.reset_on_fork = true;
        r.set.group = QCLASS_BACKGROUND;
        assert_true(state_record_format(&r, line, sizeof line) > 0);
        assert_int_equal(state_record_parse(line, &back, &forget), 0);
        assert_int_equal(forget, 0);
        assert_int_equal(back.tid, r.tid);
        assert_int_equal(back.start_time, r.start_time);
        assert_int_equal(back.class, r.class);
        assert_int_equal(task_attr_diff(&back.orig, &r.orig, KNOBS_ALL), 0);
        assert_int_equal(task_attr_diff(&back.set, &r.set, KNOBS_ALL), 0);
        assert_true(back.set.reset_on_fork);
        assert_false(back.orig.reset_on_fork);
        assert_int_equal(back.set.group, QCLASS_BACKGROUND); /* qosd's group survives a crash */
        assert_int_equal(back.orig.group, QCLASS_UNSPECIFIED);
        assert_int_equal(state_record_parse("F 1234 987654321\n", &back, &forget), 0);
        assert_int_equal(forget, 1);
        assert_int_equal(back.tid, 1234);
        /* Torn or foreign lines are refused, not half-read. */
        assert_int_equal(state_record_parse("A 1234 5 2 0 4\n", &back, &forget), -EINVAL);
        assert_int_equal(state_record_parse("A 1234 5 9 0 0 0 0 0 1024 0 50000 0 0 0 0 0 1024 0 50000\n",
                                            &back, &forget), -EINVAL); /* class 9 */
        assert_int_equal(state_record_parse("garbage", &back, &forget), -EINVAL);
        /* A record from before groups: no group on either side. */
        assert_int_equal(state_record_parse("A 1234 5 1 0 0 0 0 0 1024 0 50000 5 19 0 0 0 512 24576 10000000\n",
                                            &back, &forget), 0);
        assert_int_equal(back.set.policy, 5);
        assert_int_equal(back.set.group, QCLASS_UNSPECIFIED);
        /* A torn group record is refused, never read as an older one. */
        line[strlen(line) - 3] = '\0';
        assert_int_equal(state_record_parse(line, &back, &forget), -EINVAL);
        assert_int_equal(state_record_parse("B 1234 5 1 0 0 0 0 0 1024 0 50000 7 5 19 0 0 0 512 24576 10000000 1\n",
                                            &back, &forget), -EINVAL); /* group 7 */
}

/* Replay: first original wins, a forget drops, a forget for another start
 * time (recycled TID) does not, a torn last line is skipped. */
static void test_replay(void **state) {
        char path[] = "/tmp/test-state-file.XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "w");
        StateRecord a = { 10, 100, QCLASS_BACKGROUND, attr(0, 4), attr(5, 19) };
        StateRecord a2 = { 10, 100, QCLASS_USER_INITIATED, attr(5, 19), attr(0, -5) };
        StateRecord b = { 11, 200, QCLASS_BACKGROUND, attr(0, 0), attr(5, 19) };
        char line[256];
        state_record_format(&a, line, sizeof line), fputs(line, f);
        state_record_format(&a2, line, sizeof line), fputs(line, f);
        state_record_format(&b, line, sizeof line), fputs(line, f);
        fputs("F 11 999\n", f);  /* another task that had TID 11 */
        fputs("A 12 300 1 0 0", f); /* torn */
        fclose(f);

        PidMap m;
        assert_int_equal(state_file_load(path, &m), 0);
        assert_int_equal(pid_map_size(&m), 2);
        StateRecord *r = pid_map_get(&m, 10);
        assert_non_null(r);
        assert_int_equal(r->orig.nice, 4);       /* the first original */
        assert_int_equal(r->set.nice, -5);       /* the latest setting */
        assert_int_equal(r->class, QCLASS_USER_INITIATED);
        assert_non_null(pid_map_get(&m, 11));
        state_records_free(&m);

        f = fopen(path, "a");
        fputs("\nF 10 100\n", f);
        fclose(f);
        assert_int_equal(state_file_load(path, &m), 0);
        assert_null(pid_map_get(&m, 10));
        state_records_free(&m);
        unlink(path);

        assert_int_equal(state_file_load("/nonexistent/qosd.state", &m), 0);
        assert_int_equal(pid_map_size(&m), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_record_round_trip),
                cmocka_unit_test(test_replay),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
