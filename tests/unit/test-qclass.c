/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "core/qclass.h"

static void test_canonical_names_round_trip(void **state) {
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                assert_int_equal(qclass_from_string(qclass_to_string(c)), c);
}

static void test_aliases(void **state) {
        static const struct {
                const char *s;
                QClass c;
        } cases[] = {
                { "ui", QCLASS_USER_INTERACTIVE },
                { "in", QCLASS_USER_INITIATED },
                { "ut", QCLASS_UTILITY },
                { "bg", QCLASS_BACKGROUND },
                { "interactive", QCLASS_USER_INTERACTIVE },
                { "initiated", QCLASS_USER_INITIATED },
                { "default", QCLASS_UTILITY },
                { "QOS_CLASS_USER_INTERACTIVE", QCLASS_USER_INTERACTIVE },
                { "QOS_CLASS_USER_INITIATED", QCLASS_USER_INITIATED },
                { "QOS_CLASS_DEFAULT", QCLASS_UTILITY },
                { "QOS_CLASS_UTILITY", QCLASS_UTILITY },
                { "QOS_CLASS_BACKGROUND", QCLASS_BACKGROUND },
                { "QOS_USER_INTERACTIVE", QCLASS_USER_INTERACTIVE },
                { "QOS_BACKGROUND", QCLASS_BACKGROUND },
                { "User_Interactive", QCLASS_USER_INTERACTIVE },
                { "BACKGROUND", QCLASS_BACKGROUND },
                { "Ui", QCLASS_USER_INTERACTIVE },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
                assert_int_equal(qclass_from_string(cases[i].s), cases[i].c);
}

static void test_unknown_names(void **state) {
        static const char *const bad[] = {
                "", "user", "fast", "qos-class-", "QOS_CLASS_", "userinteractivex", "u i",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                assert_int_equal(qclass_from_string(bad[i]), -EINVAL);
        assert_int_equal(qclass_from_string(NULL), -EINVAL);
}

static void test_valid_names_lists_every_class(void **state) {
        const char *names = qclass_valid_names();
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                assert_non_null(strstr(names, qclass_to_string(c)));
}

static void test_order_and_max(void **state) {
        assert_true(QCLASS_BACKGROUND < QCLASS_UTILITY);
        assert_true(QCLASS_UTILITY < QCLASS_USER_INITIATED);
        assert_true(QCLASS_USER_INITIATED < QCLASS_USER_INTERACTIVE);
        assert_int_equal(qclass_max(QCLASS_BACKGROUND, QCLASS_USER_INITIATED), QCLASS_USER_INITIATED);
        assert_int_equal(qclass_min(QCLASS_UNSPECIFIED, QCLASS_BACKGROUND), QCLASS_BACKGROUND);
        assert_int_equal(qclass_min(QCLASS_USER_INTERACTIVE, QCLASS_UTILITY), QCLASS_UTILITY);
        assert_false(qclass_is_valid(QCLASS_UNSPECIFIED));
        assert_false(qclass_is_valid(_QCLASS_MAX));
        assert_null(qclass_to_string(_QCLASS_MAX));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_canonical_names_round_trip),
                cmocka_unit_test(test_aliases),
                cmocka_unit_test(test_unknown_names),
                cmocka_unit_test(test_valid_names_lists_every_class),
                cmocka_unit_test(test_order_and_max),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
