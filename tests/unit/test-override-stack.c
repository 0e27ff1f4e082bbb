/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Nesting and stacking of overrides, the rule both libqos and qosd follow:
 * effective = the highest of the base and every active override. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/override-stack.h"

static void test_nest_and_unwind_in_any_order(void **state) {
        OverrideStack s = { 0 };

        assert_true(override_stack_empty(&s));
        assert_int_equal(override_stack_effective(&s, QCLASS_BACKGROUND), QCLASS_UNSPECIFIED);

        override_stack_push(&s, QCLASS_UTILITY);
        assert_int_equal(override_stack_effective(&s, QCLASS_BACKGROUND), QCLASS_UTILITY);
        override_stack_push(&s, QCLASS_USER_INTERACTIVE);
        override_stack_push(&s, QCLASS_USER_INITIATED);
        override_stack_push(&s, QCLASS_USER_INTERACTIVE);
        assert_int_equal(override_stack_effective(&s, QCLASS_BACKGROUND), QCLASS_USER_INTERACTIVE);

        /* Two of the same class: the class stays until both end. */
        assert_int_equal(override_stack_pop(&s, QCLASS_USER_INTERACTIVE), 0);
        assert_int_equal(override_stack_effective(&s, QCLASS_BACKGROUND), QCLASS_USER_INTERACTIVE);
        assert_int_equal(override_stack_pop(&s, QCLASS_USER_INTERACTIVE), 0);
        assert_int_equal(override_stack_effective(&s, QCLASS_BACKGROUND), QCLASS_USER_INITIATED);

        /* Ending the lower one first changes nothing. */
        assert_int_equal(override_stack_pop(&s, QCLASS_UTILITY), 0);
        assert_int_equal(override_stack_effective(&s, QCLASS_BACKGROUND), QCLASS_USER_INITIATED);
        assert_int_equal(override_stack_pop(&s, QCLASS_USER_INITIATED), 0);

        /* Empty: back to the base exactly (UNSPECIFIED says "the base"). */
        assert_true(override_stack_empty(&s));
        assert_int_equal(override_stack_effective(&s, QCLASS_BACKGROUND), QCLASS_UNSPECIFIED);
        assert_int_equal(override_stack_pop(&s, QCLASS_UTILITY), -ENOENT);
}

static void test_override_below_base_changes_nothing(void **state) {
        OverrideStack s = { 0 };

        override_stack_push(&s, QCLASS_UTILITY);
        assert_int_equal(override_stack_effective(&s, QCLASS_USER_INITIATED), QCLASS_UNSPECIFIED);
        assert_int_equal(override_stack_effective(&s, QCLASS_UTILITY), QCLASS_UNSPECIFIED);
        /* A hand-made base (no class) is below every class. */
        assert_int_equal(override_stack_effective(&s, QCLASS_UNSPECIFIED), QCLASS_UTILITY);
}

static void test_invalid_classes_ignored(void **state) {
        OverrideStack s = { 0 };

        override_stack_push(&s, QCLASS_UNSPECIFIED);
        override_stack_push(&s, _QCLASS_MAX);
        assert_true(override_stack_empty(&s));
        assert_int_equal(override_stack_pop(&s, _QCLASS_MAX), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nest_and_unwind_in_any_order),
                cmocka_unit_test(test_override_below_base_changes_nothing),
                cmocka_unit_test(test_invalid_classes_ignored),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
