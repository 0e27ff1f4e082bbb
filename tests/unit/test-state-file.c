/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

static int parse(const char *line, StateRecord *ret, int *forget) {
        return state_record_parse(line, ret, forget, NULL, 0);
}

static void assert_records_equal(const StateRecord *a, const StateRecord *b) {
        assert_int_equal(a->tid, b->tid);
        assert_int_equal(a->start_time, b->start_time);
        assert_int_equal(a->class, b->class);
        assert_int_equal(task_attr_diff(&a->orig, &b->orig, KNOBS_ALL), 0);
        assert_int_equal(task_attr_diff(&a->set, &b->set, KNOBS_ALL), 0);
        assert_int_equal(a->orig.reset_on_fork, b->orig.reset_on_fork);
        assert_int_equal(a->set.reset_on_fork, b->set.reset_on_fork);
}

/* The record as qosd writes it now: every field named. */
static void test_record_round_trip(void **state) {
        StateRecord r = { 1234, 987654321, QCLASS_BACKGROUND, attr(0, 4), attr(5, 19) }, back;
        char line[STATE_LINE_MAX];
        int forget;
        r.set.reset_on_fork = true;
        r.set.group = QCLASS_BACKGROUND;
        assert_true(state_record_format(&r, line, sizeof line) > 0);
        /* The record's own fields first, then each knob by name: orig's,
         * then set's (a new knob adds its own, so no exact line here). */
        static const char *const fields[] = {
                "C tid=1234 start=987654321 class=background orig.policy=0 ", " orig.nice=4 ",
                " orig.slice=8000000 ", " orig.uclamp=0..1024 ", " orig.ioprio=24576 ",
                " orig.timer-slack=50000 ", " orig.group=none ", " set.policy=5|reset-on-fork ",
                " set.nice=19 ", " set.slice=8000000 ", " set.ioprio=24576 ", " set.timer-slack=50000 ",
                " set.group=background",
        };
        const char *at = line;
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
                const char *f = strstr(at, fields[i]);
                if (!f)
                        fail_msg("\"%s\" missing or out of order in %s", fields[i], line);
                at = f + 1;
        }
        assert_int_equal(line[strlen(line) - 1], '\n');
        assert_null(strstr(line, "ramp-up")); /* nothing to keep */
        assert_int_equal(parse(line, &back, &forget), 0);
        assert_int_equal(forget, 0);
        assert_records_equal(&back, &r);
        assert_true(back.set.reset_on_fork);
        assert_false(back.orig.reset_on_fork);
        assert_int_equal(back.set.group, QCLASS_BACKGROUND); /* qosd's group survives a crash */
        assert_int_equal(back.orig.group, QCLASS_UNSPECIFIED);

        /* The extremes of every field fit the line and come back. */
        TaskAttr big = { .policy = -2147483647 - 1, .nice = 2147483647, .slice_ns = UINT64_MAX,
                         .reset_on_fork = true, .uclamp_min = -2147483647 - 1, .uclamp_max = -2147483647 - 1,
                         .ioprio = -2147483647 - 1, .timer_slack_ns = UINT64_MAX,
                         .group = QCLASS_USER_INTERACTIVE };
        StateRecord x = { 2147483647, UINT64_MAX, QCLASS_USER_INTERACTIVE, big, big };
        assert_true(state_record_format(&x, line, sizeof line) > 0);
        assert_int_equal(parse(line, &back, &forget), 0);
        assert_records_equal(&back, &x);
        assert_int_equal(back.set.group, QCLASS_USER_INTERACTIVE);
        assert_int_equal(state_record_format(&x, line, 100), -ENOBUFS); /* too small: refused, not cut */

        /* A forget, as written now and as earlier qosd wrote it. */
        assert_int_equal(parse("F tid=1234 start=987654321\n", &back, &forget), 0);
        assert_int_equal(forget, 1);
        assert_int_equal(back.tid, 1234);
        assert_int_equal(back.start_time, 987654321);
        assert_int_equal(parse("F 1234 987654321\n", &back, &forget), 0);
        assert_int_equal(forget, 1);
        assert_int_equal(back.tid, 1234);

        /* Order does not matter, names do; a knob not named reads neutral
         * (a record written before the knob existed). */
        assert_int_equal(parse("C set.nice=19 class=utility start=5 tid=7 orig.nice=-3\n", &back, &forget), 0);
        assert_int_equal(back.tid, 7);
        assert_int_equal(back.start_time, 5);
        assert_int_equal(back.class, QCLASS_UTILITY);
        assert_int_equal(back.orig.nice, -3);
        assert_int_equal(back.set.nice, 19);
        assert_int_equal(back.set.uclamp_max, 1024);
        assert_int_equal(back.set.group, QCLASS_UNSPECIFIED);
}

/* Today's files: positional "A" (no group) and "B" (group ninth). */
static void test_record_positional(void **state) {
        StateRecord back;
        int forget;

        assert_int_equal(parse("A 1234 5 1 0 0 0 0 0 1024 0 50000 5 19 0 0 0 512 24576 10000000\n",
                               &back, &forget), 0);
        assert_int_equal(forget, 0);
        assert_int_equal(back.tid, 1234);
        assert_int_equal(back.start_time, 5);
        assert_int_equal(back.class, QCLASS_BACKGROUND);
        assert_int_equal(back.set.policy, 5);
        assert_int_equal(back.set.nice, 19);
        assert_int_equal(back.set.uclamp_max, 512);
        assert_int_equal(back.set.ioprio, 24576);
        assert_int_equal(back.set.timer_slack_ns, 10000000);
        assert_int_equal(back.set.group, QCLASS_UNSPECIFIED); /* from before groups: none */
        assert_int_equal(back.orig.uclamp_max, 1024);

        const char *b = "B 1234 5 1 0 0 0 0 0 1024 0 50000 0 5 19 8000000 0 0 512 24576 10000000 1\n";
        assert_int_equal(parse(b, &back, &forget), 0);
        assert_int_equal(back.set.group, QCLASS_BACKGROUND);
        assert_int_equal(back.set.slice_ns, 8000000);
        assert_int_equal(back.orig.group, QCLASS_UNSPECIFIED);

        /* Read back in the named format, it is the same record. */
        char line[STATE_LINE_MAX];
        StateRecord again;
        assert_true(state_record_format(&back, line, sizeof line) > 0);
        assert_int_equal(parse(line, &again, &forget), 0);
        assert_records_equal(&again, &back);

        /* Torn or foreign positional lines are refused, not half-read. */
        assert_int_equal(parse("A 1234 5 2 0 4\n", &back, &forget), -EINVAL);
        assert_int_equal(parse("A 1234 5 9 0 0 0 0 0 1024 0 50000 0 0 0 0 0 1024 0 50000\n",
                               &back, &forget), -EINVAL); /* class 9 */
        /* A torn group record is refused, never read as an older one. */
        assert_int_equal(parse("B 1234 5 1 0 0 0 0 0 1024 0 50000 0 5 19 8000000 0 0 512 24576 10000000",
                               &back, &forget), -EINVAL);
        assert_int_equal(parse("B 1234 5 1 0 0 0 0 0 1024 0 50000 7 5 19 0 0 0 512 24576 10000000 1\n",
                               &back, &forget), -EINVAL); /* group 7 */
}

/* What is refused, and that the reason names the field. */
static void test_record_refused(void **state) {
        static const struct {
                const char *line;
                const char *why;
        } cases[] = {
                { "garbage", "not a record" },
                { "", "not a record" },
                { "\n", "not a record" },
                { "C\n", "without a blank" },
                { "C \n", "is not NAME=VALUE" },
                { "C tid=1 start=2 class=utility", "without its newline" },
                { "C tid=1 start=2 class=utility orig.nice=1", "without its newline" }, /* torn mid-value */
                { "C tid=1 start=2 class=utility orig.foo=1\n", "unknown field \"orig.foo\"" },
                { "C tid=1 start=2 class=utility colour=blue\n", "unknown field \"colour\"" },
                { "C tid=1 start=2 class=utility orig.ramp-up=1\n", "unknown field \"orig.ramp-up\"" },
                { "C tid=1 start=2 class=utility nice=1\n", "unknown field \"nice\"" },
                { "C tid=1 start=2 class=utility orig.nice=1 orig.nice=2\n", "\"orig.nice\" repeated" },
                { "C tid=1 tid=1 start=2 class=utility\n", "\"tid\" repeated" },
                { "C tid=1 start=2 class=utility set.nice=x\n", "bad value \"x\" for \"set.nice\"" },
                { "C tid=1 start=2 class=utility set.nice=\n", "bad value \"\" for \"set.nice\"" },
                { "C tid=1 start=2 class=utility set.nice=+1\n", "bad value" },
                { "C tid=1 start=2 class=utility set.nice= 1\n", "bad value" },
                { "C tid=1 start=2 class=utility set.nice=99999999999\n", "bad value" },
                { "C tid=1 start=2 class=utility set.slice=-1\n", "bad value \"-1\" for \"set.slice\"" },
                { "C tid=1 start=2 class=utility set.slice=18446744073709551616\n", "bad value" },
                { "C tid=1 start=2 class=utility set.policy=0|reset\n", "bad value" },
                { "C tid=1 start=2 class=utility set.uclamp=0..\n", "bad value" },
                { "C tid=1 start=2 class=utility set.uclamp=1024\n", "bad value" },
                { "C tid=1 start=2 class=utility set.group=7\n", "bad value \"7\" for \"set.group\"" },
                { "C tid=1 start=2 class=utility set.group=bg\n", "bad value" },
                { "C tid=1 start=2 class=unspecified\n", "bad value \"unspecified\" for \"class\"" },
                { "C tid=0 start=2 class=utility\n", "bad value \"0\" for \"tid\"" },
                { "C tid=-5 start=2 class=utility\n", "bad value" },
                { "C tid=1 start=2  class=utility\n", "is not NAME=VALUE" },
                { "C tid=1 start=2 class=utility \n", "is not NAME=VALUE" },
                { "C tid=1 start=2 =utility\n", "is not NAME=VALUE" },
                { "C tid=1 start=2 class\n", "is not NAME=VALUE" },
                { "C tid=1 start=2 class=utility\r\n", "bad value" },
                { "C start=2 class=utility\n", "without tid" },
                { "C tid=1 class=utility\n", "without start" },
                { "C tid=1 start=2\n", "without class" },
                { "F tid=1\n", "without start" },
                { "F tid=1 start=2 class=utility\n", "unknown field \"class\"" },
                { "F tid=1 start=2", "without its newline" },
                { "F 1\n", "malformed F record" },
                { "A 1234 5 2 0 4\n", "malformed" },
                /* A torn record followed by the next run's first one. */
                { "C tid=1 start=2 class=utility orig.niC tid=3 start=4 class=utility\n", "\"orig.niC\" is not NAME=VALUE" },
                { "C tid=1 start=2 class=utility orig.nice=1C tid=3 start=4 class=utility\n", "bad value" },
                { "C tid=1 start=2 class=utility orig.nice=1 C tid=3 start=4 class=utility\n",
                  "\"C\" is not NAME=VALUE" },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                StateRecord back;
                char why[128] = "unset";
                int forget;
                int r = state_record_parse(cases[i].line, &back, &forget, why, sizeof why);
                if (r != -EINVAL || !strstr(why, cases[i].why))
                        fail_msg("\"%s\": %d, \"%s\" (wanted \"%s\")", cases[i].line, r, why, cases[i].why);
        }

        /* Too long to be a record: refused whole, whatever follows. */
        char line[STATE_LINE_MAX + 64], why[128];
        StateRecord back;
        int forget;
        int n = snprintf(line, sizeof line, "C tid=1 start=2 class=utility");
        while (n < (int) sizeof line - 16)
                n += snprintf(line + n, sizeof line - (size_t) n, " set.nice=1");
        snprintf(line + n, sizeof line - (size_t) n, "\n");
        assert_int_equal(state_record_parse(line, &back, &forget, why, sizeof why), -EINVAL);
        assert_non_null(strstr(why, "over 1023 bytes"));
}

/* A file with records of every kind, old and new, and lines that are no
 * record: the good ones are read, the others skipped, nothing crashes. */
static void test_read_mixed(void **state) {
        char buf[4 * STATE_LINE_MAX];
        size_t len = 0;
        len += (size_t) snprintf(buf + len, sizeof buf - len, "%s",
                                 "B 10 100 4 0 4 0 0 0 1024 0 50000 0 5 19 0 0 0 1024 0 50000 1\n"
                                 "A 11 200 1 0 0 0 0 0 1024 0 50000 5 19 0 0 0 512 24576 10000000\n"
                                 "C tid=12 start=300 class=user-initiated orig.nice=0 set.nice=-5\n"
                                 "C tid=13 start=400 class=utility orig.bogus=1\n"
                                 "\x01\x02 not a record\n");
        memset(buf + len, 'x', 3000); /* longer than any record */
        len += 3000;
        len += (size_t) snprintf(buf + len, sizeof buf - len, "%s",
                                 "\nF 11 200\n"
                                 "C tid=14 start=500 class=background set.nice=19\n"
                                 "F tid=14 start=500\n"
                                 "C tid=15 start=600 class=background set.nice=1"); /* torn */
        FILE *f = fmemopen(buf, len, "r");
        assert_non_null(f);
        PidMap m;
        assert_int_equal(state_file_read(f, "test.state", &m), 0);
        fclose(f);
        assert_int_equal(pid_map_size(&m), 2);
        StateRecord *r = pid_map_get(&m, 10);
        assert_non_null(r);
        assert_int_equal(r->set.group, QCLASS_BACKGROUND);
        r = pid_map_get(&m, 12);
        assert_non_null(r);
        assert_int_equal(r->class, QCLASS_USER_INITIATED);
        assert_int_equal(r->set.nice, -5);
        state_records_free(&m);
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
        char line[STATE_LINE_MAX];
        state_record_format(&a, line, sizeof line), fputs(line, f);
        state_record_format(&a2, line, sizeof line), fputs(line, f);
        state_record_format(&b, line, sizeof line), fputs(line, f);
        fputs("F tid=11 start=999\n", f);  /* another task that had TID 11 */
        fputs("C tid=12 start=300 class=utility", f); /* torn */
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
        fputs("\nF tid=10 start=100\n", f);
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
        TaskRegistry reg = { PID_MAP_INIT, PID_MAP_INIT };
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
                cmocka_unit_test(test_record_positional),
                cmocka_unit_test(test_record_refused),
                cmocka_unit_test(test_read_mixed),
                cmocka_unit_test(test_replay),
                cmocka_unit_test(test_refusals),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
