/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "state/state-file.h"

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
        /* In a directory of the test's own: qosd refuses world-writable ones. */
        char dir[] = "/tmp/test-state-file.XXXXXX", path[64];
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/qosd.state", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
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
        rmdir(dir);

        assert_int_equal(state_file_load("/nonexistent/qosd.state", &m), 0);
        assert_int_equal(pid_map_size(&m), 0);
}

/* Where someone else could have put or changed the file, qosd neither
 * reads nor writes it, says why, and takes it up again once it is sound. */
static void test_refusals(void **state) {
        char dir[] = "/tmp/test-state-file.XXXXXX", path[64], other[64], buf[512];
        TaskRegistry reg = { PID_MAP_INIT };
        StateFile sf;
        PidMap m;
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/qosd.state", dir);
        snprintf(other, sizeof other, "%s/elsewhere", dir);
        FILE *f = fopen(other, "w");
        assert_non_null(f);
        fputs("B 10 100 4 0 4 0 0 0 1024 0 50000 0 5 19 0 0 0 1024 0 50000 0\n", f);
        fclose(f);

        /* A symbolic link is not followed, for reading or for writing. */
        assert_int_equal(symlink(other, path), 0);
        assert_int_equal(state_file_load(path, &m), -ELOOP);
        assert_int_equal(state_file_open(&sf, path, &reg, NULL), 0);
        assert_false(state_file_recording(&sf));
        assert_non_null(strstr(state_file_status(&sf, buf, sizeof buf), "symbolic link"));
        assert_int_equal(state_file_compact(&sf, &reg), -ELOOP); /* not replaced behind the admin's back */
        assert_int_equal(unlink(path), 0);
        assert_int_equal(state_file_compact(&sf, &reg), 0);
        assert_true(state_file_recording(&sf));
        assert_non_null(strstr(state_file_status(&sf, buf, sizeof buf), "on ("));

        /* A directory others may write to. */
        assert_int_equal(chmod(dir, 0770), 0);
        assert_int_equal(state_file_load(path, &m), -EPERM);
        assert_int_equal(state_file_compact(&sf, &reg), -EPERM);
        assert_false(state_file_recording(&sf));
        assert_non_null(strstr(state_file_status(&sf, buf, sizeof buf), "writable by its group"));
        assert_int_equal(chmod(dir, 0755), 0);
        assert_int_equal(state_file_compact(&sf, &reg), 0);
        assert_true(state_file_recording(&sf));
        state_file_close(&sf);

        /* The file the link pointed at is as it was. */
        f = fopen(other, "r");
        assert_non_null(f);
        assert_non_null(fgets(buf, sizeof buf, f));
        fclose(f);
        assert_int_equal(strncmp(buf, "B 10 100", 8), 0);
        unlink(other);
        unlink(path);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_record_round_trip),
                cmocka_unit_test(test_replay),
                cmocka_unit_test(test_refusals),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
