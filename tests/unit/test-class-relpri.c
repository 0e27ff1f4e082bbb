/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Relative priority: a nice offset inside the class that never reaches the
 * next lower class, and reads back to what was set. No root needed. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/class-relpri.h"
#include "core/class-table.h"

static const KernelCaps caps = {
        .supported = { [KNOB_POLICY] = true, [KNOB_NICE] = true, [KNOB_SLICE] = true },
        .default_slice_ns = 1400000,
};

static void test_spans_from_the_table(void **state) {
        assert_int_equal(class_relpri_span(QCLASS_USER_INTERACTIVE), 15); /* -20 .. -6 */
        assert_int_equal(class_relpri_span(QCLASS_USER_INITIATED), 5);   /* -5 .. -1 */
        assert_int_equal(class_relpri_span(QCLASS_UTILITY), 16);         /* 0 .. 15 */
        assert_int_equal(class_relpri_span(QCLASS_BACKGROUND), 0);       /* SCHED_IDLE */
        assert_int_equal(class_relpri_span(QCLASS_UNSPECIFIED), 0);
}

/* The documented mapping, value by value. */
static void test_documented_offsets(void **state) {
        static const int ui[16] = { 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };
        static const int in[16] = { 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4 };
        for (int r = 0; r >= QCLASS_RELPRI_MIN; r--) {
                assert_int_equal(class_relpri_to_nice_offset(QCLASS_USER_INTERACTIVE, r), ui[-r]);
                assert_int_equal(class_relpri_to_nice_offset(QCLASS_USER_INITIATED, r), in[-r]);
                assert_int_equal(class_relpri_to_nice_offset(QCLASS_UTILITY, r), -r);
                assert_int_equal(class_relpri_to_nice_offset(QCLASS_BACKGROUND, r), 0);
        }
}

/* However low the relative priority, a class stays ahead of the next. */
static void test_never_reaches_the_lower_class(void **state) {
        for (QClass c = QCLASS_UTILITY; c <= QCLASS_USER_INTERACTIVE; c++) {
                TaskAttr lowest, below;
                class_target_attr_relpri(c, QCLASS_RELPRI_MIN, &caps, &lowest);
                class_target_attr(c - 1, &caps, &below);
                assert_true(lowest.nice < below.nice);
                assert_int_equal(lowest.policy, class_knobs(c)->policy);
                assert_int_equal(lowest.slice_ns, class_knobs(c)->slice_ns);
        }
}

static void test_out_of_range(void **state) {
        int r;
        assert_int_equal(class_relpri_to_nice_offset(QCLASS_UTILITY, 1), -EINVAL);
        assert_int_equal(class_relpri_to_nice_offset(QCLASS_UTILITY, -16), -EINVAL);
        assert_int_equal(class_relpri_to_nice_offset(QCLASS_UNSPECIFIED, 0), -EINVAL);
        assert_int_equal(class_relpri_from_nice_offset(QCLASS_USER_INTERACTIVE, 15, &r), -EINVAL);
        assert_int_equal(class_relpri_from_nice_offset(QCLASS_USER_INITIATED, 5, &r), -EINVAL);
        assert_int_equal(class_relpri_from_nice_offset(QCLASS_UTILITY, -1, &r), -EINVAL);
        assert_int_equal(class_relpri_from_nice_offset(QCLASS_BACKGROUND, 1, &r), -EINVAL);
        assert_false(qclass_relpri_is_valid(1));
        assert_false(qclass_relpri_is_valid(-16));
        assert_true(qclass_relpri_is_valid(0));
        assert_true(qclass_relpri_is_valid(-15));
}

/* Set, read back, set what was read: the same nice. And what is read back
 * is the relative priority nearest 0 with that nice. */
static void test_round_trip(void **state) {
        for (QClass c = QCLASS_BACKGROUND; c <= QCLASS_USER_INTERACTIVE; c++)
                for (int r = 0; r >= QCLASS_RELPRI_MIN; r--) {
                        TaskAttr t, again;
                        int back;
                        class_target_attr_relpri(c, r, &caps, &t);
                        assert_int_equal(class_from_attr_relpri(&t, &caps, &back), c);
                        assert_true(back >= r && back <= 0);
                        class_target_attr_relpri(c, back, &caps, &again);
                        assert_int_equal(again.nice, t.nice);
                        if (back < 0) { /* nothing nearer 0 gives the same nice */
                                TaskAttr nearer;
                                class_target_attr_relpri(c, back + 1, &caps, &nearer);
                                assert_int_not_equal(nearer.nice, t.nice);
                        }
                }
}

/* A nice between two classes' spans, or a foreign slice, is no class. */
static void test_unrecognised(void **state) {
        TaskAttr t;
        int relpri = 7;
        class_target_attr(QCLASS_UTILITY, &caps, &t);
        t.nice = 17;
        assert_int_equal(class_from_attr_relpri(&t, &caps, &relpri), QCLASS_UNSPECIFIED);
        assert_int_equal(relpri, 0);
        /* user-interactive's span reaches up to user-initiated's. */
        class_target_attr(QCLASS_USER_INTERACTIVE, &caps, &t);
        t.nice = -11;
        assert_int_equal(class_from_attr_relpri(&t, &caps, &relpri), QCLASS_USER_INTERACTIVE);
        assert_int_equal(relpri, -10);
        t.nice = -5;
        assert_int_equal(class_from_attr_relpri(&t, &caps, NULL), QCLASS_UNSPECIFIED); /* a UI slice */
        class_target_attr(QCLASS_USER_INITIATED, &caps, &t);
        t.nice = -3;
        t.slice_ns = 3000000;
        assert_int_equal(class_from_attr_relpri(&t, &caps, NULL), QCLASS_UNSPECIFIED);
        t.policy = SCHED_FIFO;
        t.nice = 0;
        t.slice_ns = 0;
        assert_int_equal(class_from_attr_relpri(&t, &caps, NULL), QCLASS_UNSPECIFIED);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_spans_from_the_table),
                cmocka_unit_test(test_documented_offsets),
                cmocka_unit_test(test_never_reaches_the_lower_class),
                cmocka_unit_test(test_out_of_range),
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_unrecognised),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
