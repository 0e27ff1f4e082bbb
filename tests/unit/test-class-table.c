/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The class table: utility is the kernel's defaults, the classes are
 * ordered, and reading a class back identifies it. No root needed. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/class-table.h"
#include "core/sched-syscall.h"

static const KernelCaps all_caps = {
        .supported = { true, true, true, true, false, true, true, true },
        .default_slice_ns = 1400000,
};

static void test_utility_is_kernel_default(void **state) {
        const ClassKnobs *u = class_knobs(QCLASS_UTILITY);
        assert_non_null(u);
        assert_int_equal(u->policy, SCHED_OTHER);
        assert_int_equal(u->nice, 0);
        assert_int_equal(u->slice_ns, 0);          /* no custom slice */
        assert_int_equal(u->uclamp_min, 0);        /* no clamp */
        assert_int_equal(u->uclamp_max, 1024);
        assert_int_equal(u->rampup_pct, 100);
        assert_int_equal(u->ioprio, 0);            /* IOPRIO_CLASS_NONE */
        assert_int_equal(u->timer_slack_ns, 50000); /* the kernel's default slack */
        assert_false(u->reset_on_fork);
        assert_false(class_has_group(QCLASS_UTILITY)); /* stays where the kernel put it */
        assert_int_equal(QCLASS_DEFAULT, QCLASS_UTILITY);
}

static void test_unspecified_has_no_knobs(void **state) {
        assert_null(class_knobs(QCLASS_UNSPECIFIED));
        assert_null(class_knobs(_QCLASS_MAX));
}

/* Higher classes never get a worse setting than lower ones. */
static void test_classes_are_monotonic(void **state) {
        for (QClass c = QCLASS_BACKGROUND; c < QCLASS_USER_INTERACTIVE; c++) {
                const ClassKnobs *lo = class_knobs(c), *hi = class_knobs(c + 1);
                assert_true(hi->nice <= lo->nice);
                assert_true(hi->uclamp_min >= lo->uclamp_min);
                assert_true(hi->timer_slack_ns <= lo->timer_slack_ns);
        }
        assert_int_equal(class_knobs(QCLASS_BACKGROUND)->policy, SCHED_IDLE);
}

/* Slices stay inside the kernel's 0.1-100 ms clamp (0 = default). */
static void test_slices_in_kernel_range(void **state) {
        for (QClass c = QCLASS_BACKGROUND; c <= QCLASS_USER_INTERACTIVE; c++) {
                uint64_t s = class_knobs(c)->slice_ns;
                assert_true(s == 0 || (s >= 100000 && s <= 100000000));
        }
}

static void test_user_classes_reset_on_fork(void **state) {
        assert_true(class_knobs(QCLASS_USER_INTERACTIVE)->reset_on_fork);
        assert_true(class_knobs(QCLASS_USER_INITIATED)->reset_on_fork);
        assert_false(class_knobs(QCLASS_BACKGROUND)->reset_on_fork);
}

static void test_target_round_trips(void **state) {
        for (QClass c = QCLASS_BACKGROUND; c <= QCLASS_USER_INTERACTIVE; c++) {
                TaskAttr t;
                class_target_attr(c, &all_caps, &t);
                assert_int_equal(class_from_attr(&t, &all_caps), c);
        }
}

static void test_unsupported_knobs_take_neutral_values(void **state) {
        KernelCaps no_slice = all_caps;
        TaskAttr t;
        no_slice.supported[KNOB_SLICE] = false;
        no_slice.supported[KNOB_UCLAMP] = false;
        class_target_attr(QCLASS_USER_INTERACTIVE, &no_slice, &t);
        assert_int_equal(t.slice_ns, 0);
        assert_int_equal(t.uclamp_min, 0);
        assert_int_equal(t.uclamp_max, 1024);
        /* Without slices, identity is policy + nice only. */
        assert_int_equal(class_from_attr(&t, &no_slice), QCLASS_USER_INTERACTIVE);
}

static void test_foreign_settings_are_custom(void **state) {
        TaskAttr t;
        class_target_attr(QCLASS_UTILITY, &all_caps, &t);
        t.nice = 7; /* a manual renice */
        assert_int_equal(class_from_attr(&t, &all_caps), QCLASS_UNSPECIFIED);
}

/* Group shares: cpu.weight's range, higher classes weigh more, background
 * is idle, and the real-time budgets fit in the root's (95% by default). */
static void test_group_fields(void **state) {
        unsigned rt = 0;
        for (QClass c = QCLASS_BACKGROUND; c <= QCLASS_USER_INTERACTIVE; c++) {
                const ClassKnobs *k = class_knobs(c);
                assert_true(k->group_weight <= 10000);
                rt += k->group_rt_pct;
        }
        assert_true(rt <= 95);
        assert_true(class_knobs(QCLASS_BACKGROUND)->group_idle);
        /* Every group allows real-time (rtkit, chrt), the user classes most. */
        for (QClass c = QCLASS_BACKGROUND; c <= QCLASS_USER_INTERACTIVE; c++)
                if (class_has_group(c))
                        assert_true(class_knobs(c)->group_rt_pct > 0);
        assert_true(class_knobs(QCLASS_USER_INTERACTIVE)->group_rt_pct >
                    class_knobs(QCLASS_BACKGROUND)->group_rt_pct);
        assert_true(class_knobs(QCLASS_USER_INTERACTIVE)->group_weight >
                    class_knobs(QCLASS_USER_INITIATED)->group_weight);
        assert_true(class_knobs(QCLASS_USER_INITIATED)->group_weight > 100);
        assert_false(class_knobs(QCLASS_USER_INTERACTIVE)->group_idle);
}

/* The group is part of the target where the machine has groups; it is not
 * part of a class's identity (a thread in a foreign cgroup is still in its
 * class). */
static void test_group_in_target_not_identity(void **state) {
        KernelCaps no_groups = all_caps;
        TaskAttr t;
        no_groups.supported[KNOB_GROUP] = false;

        class_target_attr(QCLASS_BACKGROUND, &all_caps, &t);
        assert_int_equal(t.group, QCLASS_BACKGROUND);
        t.group = QCLASS_UNSPECIFIED;
        assert_int_equal(class_from_attr(&t, &all_caps), QCLASS_BACKGROUND);
        class_target_attr(QCLASS_UTILITY, &all_caps, &t);
        assert_int_equal(t.group, QCLASS_UNSPECIFIED);
        class_target_attr(QCLASS_BACKGROUND, &no_groups, &t);
        assert_int_equal(t.group, QCLASS_UNSPECIFIED);
        assert_false(class_identity_knobs(&all_caps) & KNOB_BIT(KNOB_GROUP));
}

/* The power modes change what they say, and only that; a class is still
 * recognized by the same knobs in every mode. */
static void test_power_modes(void **state) {
        ClassKnobs balanced[_QCLASS_MAX];
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                balanced[c] = *class_knobs(c);
        assert_true(balanced[QCLASS_BACKGROUND].efficient_cpus);

        class_table_set_power(POWER_SAVER);
        assert_int_equal(class_table_power(), POWER_SAVER);
        assert_true(class_knobs(QCLASS_BACKGROUND)->timer_slack_ns > balanced[QCLASS_BACKGROUND].timer_slack_ns);
        assert_int_equal(class_knobs(QCLASS_UTILITY)->uclamp_max, 512);
        assert_true(class_knobs(QCLASS_BACKGROUND)->efficient_cpus);
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++) {
                assert_int_equal(class_knobs(c)->policy, balanced[c].policy);
                assert_int_equal(class_knobs(c)->nice, balanced[c].nice);
                assert_true(class_knobs(c)->slice_ns == balanced[c].slice_ns);
        }

        class_table_set_power(POWER_PERFORMANCE);
        assert_false(class_knobs(QCLASS_BACKGROUND)->efficient_cpus);
        assert_true(class_knobs(QCLASS_BACKGROUND)->timer_slack_ns == balanced[QCLASS_BACKGROUND].timer_slack_ns);

        class_table_set_power(POWER_BALANCED);
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                assert_memory_equal(class_knobs(c), &balanced[c], sizeof balanced[c]);
        assert_string_equal(power_mode_to_string(POWER_SAVER), "power-saver");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_utility_is_kernel_default),
                cmocka_unit_test(test_unspecified_has_no_knobs),
                cmocka_unit_test(test_classes_are_monotonic),
                cmocka_unit_test(test_slices_in_kernel_range),
                cmocka_unit_test(test_user_classes_reset_on_fork),
                cmocka_unit_test(test_target_round_trips),
                cmocka_unit_test(test_unsupported_knobs_take_neutral_values),
                cmocka_unit_test(test_foreign_settings_are_custom),
                cmocka_unit_test(test_group_fields),
                cmocka_unit_test(test_group_in_target_not_identity),
                cmocka_unit_test(test_power_modes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
