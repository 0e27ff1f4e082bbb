/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The knob table: every knob has a complete row, its columns agree with
 * each other, and what it records reads back. No root, no system call
 * (the rows' probe, read and apply are the kernel's, tested by the
 * integration suite). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "core/knob-table.h"

/* A value of each recorded knob other than TASK_ATTR_NEUTRAL's, as the
 * state file writes it. A new knob with a persist column needs one here. */
static const struct {
        Knob knob;
        const char *value;
} samples[] = {
        { KNOB_POLICY, "5|reset-on-fork" },
        { KNOB_NICE, "-7" },
        { KNOB_SLICE, "8000000" },
        { KNOB_UCLAMP, "256..512" },
        { KNOB_IOPRIO, "24576" },
        { KNOB_TIMER_SLACK, "10000000" },
        { KNOB_GROUP, "background" },
        { KNOB_CPUS, "2-3,6" },
};

static const char *sample(Knob k) {
        for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
                if (samples[i].knob == k)
                        return samples[i].value;
        return NULL;
}

static void test_every_knob_has_a_row(void **state) {
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobRow *row = knob_row(k);
                assert_non_null(row);
                assert_non_null(row->name);
                assert_non_null(row->probe);
                assert_non_null(row->format);
                assert_string_equal(knob_to_string(k), row->name);
                assert_int_equal(knob_from_string(row->name), k);
                /* A name the state file can key by. */
                assert_null(strpbrk(row->name, " =.\n"));
                for (Knob j = 0; j < k; j++)
                        assert_string_not_equal(knob_row(j)->name, row->name);
        }
        assert_null(knob_row(_KNOB_MAX));
        assert_null(knob_row((Knob) -1));
        assert_int_equal(knob_from_string("no-such-knob"), -EINVAL);
}

/* A knob with a kernel interface is read, compared, applied and recorded;
 * one without (ramp-up) none of these. */
static void test_columns_agree(void **state) {
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobRow *row = knob_row(k);
                bool value = row->from_sched || row->read;
                bool joint = k == KNOB_POLICY || k == KNOB_NICE || k == KNOB_SLICE;
                print_message("%s\n", row->name);
                assert_false(row->from_sched && row->read);
                assert_int_equal(!!row->equal, value);
                assert_int_equal(!!row->persist_format, value);
                assert_int_equal(!!row->persist_parse, value);
                assert_int_equal(!!row->copy, !!row->read); /* a read of its own may be skipped */
                if (value)
                        assert_int_equal(!!row->apply, !joint); /* or task-apply.c's apply_sched() */
                else
                        assert_null(row->apply);
                if (row->persist_parse)
                        assert_non_null(sample(k));
        }
}

/* Each recorded knob: its sample parses, differs from neutral on that
 * knob alone, formats back to the same text, and copies over. */
static void test_persist_round_trip(void **state) {
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobRow *row = knob_row(k);
                TaskAttr neutral = TASK_ATTR_NEUTRAL, a = TASK_ATTR_NEUTRAL, b = TASK_ATTR_NEUTRAL;
                char buf[KNOB_PERSIST_MAX];
                if (!row->persist_parse)
                        continue;
                print_message("%s=%s\n", row->name, sample(k));
                assert_non_null(sample(k)); /* a new knob: add its sample above */
                assert_int_equal(row->persist_parse(sample(k), &a), 0);
                /* Unknown CPUs (neutral) are equal to any: compared as text. */
                if (k == KNOB_CPUS)
                        assert_true(cpu_mask_count(&a.cpus) == 3 && cpu_mask_is_empty(&neutral.cpus));
                else
                        assert_int_equal(task_attr_diff(&neutral, &a, KNOBS_ALL), KNOB_BIT(k));
                assert_true(row->persist_format(&a, buf, sizeof buf) > 0);
                assert_string_equal(buf, sample(k));
                assert_int_equal(row->persist_parse(buf, &b), 0);
                assert_int_equal(task_attr_diff(&a, &b, KNOBS_ALL), 0);
                if (row->copy) {
                        row->copy(&neutral, &a);
                        assert_int_equal(task_attr_diff(&neutral, &a, KNOBS_ALL), 0);
                }
                /* The neutral value too, and a buffer too small is refused. */
                TaskAttr n = TASK_ATTR_NEUTRAL;
                assert_true(row->persist_format(&n, buf, sizeof buf) > 0);
                assert_int_equal(row->persist_parse(buf, &b), 0);
                assert_int_equal(task_attr_diff(&n, &b, KNOBS_ALL), 0);
                assert_int_equal(row->persist_format(&a, buf, 1), -ENOBUFS);
                /* Nothing else parses as a value. */
                assert_int_equal(row->persist_parse("", &b), -EINVAL);
                assert_int_equal(row->persist_parse("x", &b), -EINVAL);
                assert_int_equal(row->persist_parse(" 1", &b), -EINVAL);
        }
}

/* Every field of a TaskAttr at its extreme fits KNOB_PERSIST_MAX. */
static void test_persist_extremes(void **state) {
        TaskAttr a = { .policy = INT_MIN, .nice = INT_MIN, .slice_ns = UINT64_MAX, .reset_on_fork = true,
                       .uclamp_min = INT_MIN, .uclamp_max = INT_MIN, .ioprio = INT_MIN,
                       .timer_slack_ns = UINT64_MAX, .group = QCLASS_USER_INTERACTIVE };
        char buf[1024];
        int n = knob_persist_format_attr(&a, "orig", buf, sizeof buf);
        assert_true(n > 0);
        assert_int_equal((size_t) n, strlen(buf));
        assert_non_null(strstr(buf, " orig.slice=18446744073709551615"));
        assert_non_null(strstr(buf, " orig.policy=-2147483648|reset-on-fork"));
        assert_non_null(strstr(buf, " orig.uclamp=-2147483648..-2147483648"));
        assert_null(strstr(buf, "ramp-up")); /* nothing to keep */
        assert_int_equal(knob_persist_format_attr(&a, "orig", buf, 40), -ENOBUFS);

        TaskAttr b = TASK_ATTR_NEUTRAL;
        Knob k;
        assert_int_equal(knob_persist_parse_field("timer-slack", "18446744073709551615", &b, &k), 0);
        assert_int_equal(k, KNOB_TIMER_SLACK);
        assert_true(b.timer_slack_ns == UINT64_MAX);
        assert_int_equal(knob_persist_parse_field("timer-slack", "18446744073709551616", &b, &k), -EINVAL);
        assert_int_equal(knob_persist_parse_field("nice", "-2147483649", &b, &k), -EINVAL);
        assert_int_equal(knob_persist_parse_field("ramp-up", "100", &b, &k), -ENOENT);
        assert_int_equal(knob_persist_parse_field("colour", "blue", &b, &k), -ENOENT);

        /* Every other CPU of 256: too long as a list, kept in hex. */
        TaskAttr c = TASK_ATTR_NEUTRAL, d = TASK_ATTR_NEUTRAL;
        char v[KNOB_PERSIST_MAX];
        for (unsigned cpu = 0; cpu < CPU_MASK_MAX; cpu += 2)
                cpu_mask_set(&c.cpus, cpu);
        assert_true(knob_row(KNOB_CPUS)->persist_format(&c, v, sizeof v) > 0);
        assert_string_equal(v, "x5555555555555555555555555555555555555555555555555555555555555555");
        assert_int_equal(knob_persist_parse_field("cpus", v, &d, &k), 0);
        assert_true(cpu_mask_equal(&c.cpus, &d.cpus));
        assert_int_equal(knob_persist_parse_field("cpus", "x55", &d, &k), -EINVAL);
        assert_int_equal(knob_persist_parse_field("cpus", "300", &d, &k), -EINVAL);
}

static void test_parse_numbers(void **state) {
        int i = 42;
        uint64_t u = 42;
        assert_int_equal(knob_parse_int("0", &i), 0);
        assert_int_equal(i, 0);
        assert_int_equal(knob_parse_int("-2147483648", &i), 0);
        assert_int_equal(i, INT_MIN);
        assert_int_equal(knob_parse_int("2147483648", &i), -EINVAL);
        assert_int_equal(knob_parse_int("+1", &i), -EINVAL);
        assert_int_equal(knob_parse_int("-", &i), -EINVAL);
        assert_int_equal(knob_parse_int("1 ", &i), -EINVAL);
        assert_int_equal(knob_parse_int("0x10", &i), -EINVAL);
        assert_int_equal(knob_parse_u64("18446744073709551615", &u), 0);
        assert_true(u == UINT64_MAX);
        assert_int_equal(knob_parse_u64("-1", &u), -EINVAL);
        assert_int_equal(knob_parse_u64("", &u), -EINVAL);
}

/* What people read: one value per knob, the reasons of the probes. */
static void test_format_and_reasons(void **state) {
        TaskAttr a = { .policy = 5, .nice = 19, .slice_ns = 8000000, .uclamp_max = 512,
                       .ioprio = 3 << 13, .timer_slack_ns = 50000 };
        char buf[TASK_ATTR_VALUE_MAX];
        assert_string_equal(task_attr_format_knob(&a, KNOB_POLICY, buf, sizeof buf), "idle");
        assert_string_equal(task_attr_format_knob(&a, KNOB_NICE, buf, sizeof buf), "19");
        assert_string_equal(task_attr_format_knob(&a, KNOB_SLICE, buf, sizeof buf), "8.00ms");
        assert_string_equal(task_attr_format_knob(&a, KNOB_UCLAMP, buf, sizeof buf), "0..512");
        assert_string_equal(task_attr_format_knob(&a, KNOB_RAMPUP, buf, sizeof buf), "-");
        assert_string_equal(task_attr_format_knob(&a, KNOB_IOPRIO, buf, sizeof buf), "idle");
        assert_string_equal(task_attr_format_knob(&a, KNOB_TIMER_SLACK, buf, sizeof buf), "50us");
        assert_string_equal(task_attr_format_knob(&a, _KNOB_MAX, buf, sizeof buf), "?");
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        assert_string_not_equal(class_format_knob(c, k, buf, sizeof buf), "?");
        assert_string_equal(class_format_knob(QCLASS_BACKGROUND, KNOB_RAMPUP, buf, sizeof buf), "50%");
        assert_string_equal(class_format_knob(QCLASS_UNSPECIFIED, KNOB_NICE, buf, sizeof buf), "-");

        KernelCaps caps = { .supported = { [KNOB_POLICY] = true } };
        caps.error[KNOB_SLICE] = -EOPNOTSUPP;
        caps.error[KNOB_UCLAMP] = -EOPNOTSUPP;
        caps.error[KNOB_RAMPUP] = -EOPNOTSUPP;
        caps.error[KNOB_IOPRIO] = -EPERM;
        caps.error[KNOB_TIMER_SLACK] = -EINVAL;
        caps.cgroup.missing = CGROUP_V2_NO_THREADED;
        assert_string_equal(kernel_caps_reason(&caps, KNOB_POLICY), "supported");
        assert_string_equal(kernel_caps_reason(&caps, KNOB_SLICE),
                            "kernel ignores sched_runtime (no EEVDF custom slices)");
        assert_string_equal(kernel_caps_reason(&caps, KNOB_UCLAMP), "not built into this kernel");
        assert_string_equal(kernel_caps_reason(&caps, KNOB_RAMPUP), "no kernel interface yet");
        assert_string_equal(kernel_caps_reason(&caps, KNOB_IOPRIO), "could not be probed without privilege");
        assert_string_equal(kernel_caps_reason(&caps, KNOB_TIMER_SLACK), "kernel does not know this attribute");
        assert_string_equal(kernel_caps_reason(&caps, KNOB_GROUP), "cgroup v2 without threaded mode");
        caps.error[KNOB_SLICE] = -EPERM;
        assert_string_equal(kernel_caps_reason(&caps, KNOB_SLICE), "could not be probed without privilege");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_knob_has_a_row),
                cmocka_unit_test(test_columns_agree),
                cmocka_unit_test(test_persist_round_trip),
                cmocka_unit_test(test_persist_extremes),
                cmocka_unit_test(test_parse_numbers),
                cmocka_unit_test(test_format_and_reasons),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
