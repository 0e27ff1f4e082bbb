/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which class changes an unprivileged thread can make itself, decided
 * before anything is changed. The rules are the kernel's; the integration
 * test test-libqos checks them against the real one. No root needed. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/class-relpri.h"
#include "core/class-table.h"
#include "core/task-privilege.h"

static const KernelCaps caps = {
        .supported = { [KNOB_POLICY] = true, [KNOB_NICE] = true, [KNOB_SLICE] = true,
                       [KNOB_IOPRIO] = true, [KNOB_TIMER_SLACK] = true },
        .default_slice_ns = 1400000,
};

static bool needs(QClass from, int from_relpri, QClass to, int to_relpri, uint64_t rlimit) {
        TaskAttr cur, want;
        class_target_attr_relpri(from, from_relpri, &caps, &cur);
        class_target_attr_relpri(to, to_relpri, &caps, &want);
        task_attr_unprivileged_target(&cur, &want);
        return task_change_needs_privilege(&cur, &want, KNOBS_ALL, rlimit);
}

/* Down and sideways is free, up is not, between every pair of classes. */
static void test_demotion_free_promotion_not(void **state) {
        for (QClass a = QCLASS_BACKGROUND; a <= QCLASS_USER_INTERACTIVE; a++)
                for (QClass b = QCLASS_BACKGROUND; b <= QCLASS_USER_INTERACTIVE; b++)
                        assert_int_equal(needs(a, 0, b, 0, 0), b > a);
}

static void test_relative_priority(void **state) {
        assert_false(needs(QCLASS_UTILITY, 0, QCLASS_UTILITY, -15, 0));
        assert_true(needs(QCLASS_UTILITY, -15, QCLASS_UTILITY, 0, 0));
        assert_false(needs(QCLASS_USER_INTERACTIVE, -1, QCLASS_USER_INTERACTIVE, 0, 0)); /* same nice */
        assert_true(needs(QCLASS_USER_INTERACTIVE, -15, QCLASS_USER_INTERACTIVE, -12, 0));
        assert_false(needs(QCLASS_BACKGROUND, 0, QCLASS_BACKGROUND, -15, 0));
}

/* RLIMIT_NICE N allows nice down to 20 - N, and leaving SCHED_IDLE when the
 * nice kept beneath it (19 for background) is within that. */
static void test_rlimit_nice(void **state) {
        assert_false(needs(QCLASS_UTILITY, 0, QCLASS_USER_INTERACTIVE, 0, 40));
        assert_true(needs(QCLASS_UTILITY, 0, QCLASS_USER_INTERACTIVE, 0, 39));
        assert_false(needs(QCLASS_UTILITY, -15, QCLASS_UTILITY, 0, 20));
        assert_true(needs(QCLASS_BACKGROUND, 0, QCLASS_UTILITY, 0, 0));
        assert_false(needs(QCLASS_BACKGROUND, 0, QCLASS_UTILITY, 0, 20));
        assert_true(needs(QCLASS_BACKGROUND, 0, QCLASS_UTILITY, 0, 19)); /* nice 0 needs 20 */
        assert_false(needs(QCLASS_BACKGROUND, 0, QCLASS_UTILITY, -15, 5)); /* nice 15 needs 5 */
        assert_true(needs(QCLASS_BACKGROUND, 0, QCLASS_UTILITY, -15, 4));
}

/* The kernel never lets an unprivileged caller clear reset-on-fork: going
 * down from a user class keeps it, which the predicate then accepts. */
static void test_reset_on_fork_kept(void **state) {
        TaskAttr cur, want;
        class_target_attr(QCLASS_USER_INTERACTIVE, &caps, &cur);
        class_target_attr(QCLASS_UTILITY, &caps, &want);
        assert_true(task_change_needs_privilege(&cur, &want, KNOBS_ALL, 0));
        task_attr_unprivileged_target(&cur, &want);
        assert_true(want.reset_on_fork);
        assert_false(task_change_needs_privilege(&cur, &want, KNOBS_ALL, 0));
        /* Without the policy knob, the flag is not touched at all. */
        class_target_attr(QCLASS_UTILITY, &caps, &want);
        assert_false(task_change_needs_privilege(&cur, &want, KNOBS_ALL & ~KNOB_BIT(KNOB_POLICY), 0));
}

/* Another thread's timer slack needs CAP_SYS_NICE; the caller's own not. */
static void test_unprivileged_knobs(void **state) {
        unsigned no_group = KNOBS_ALL & ~KNOB_BIT(KNOB_GROUP);
        assert_int_equal(task_unprivileged_knobs(true), no_group);
        assert_int_equal(task_unprivileged_knobs(false), no_group & ~KNOB_BIT(KNOB_TIMER_SLACK));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_demotion_free_promotion_not),
                cmocka_unit_test(test_relative_priority),
                cmocka_unit_test(test_rlimit_nice),
                cmocka_unit_test(test_reset_on_fork_kept),
                cmocka_unit_test(test_unprivileged_knobs),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
