/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Apple's class values and the core's classes: every value both ways,
 * DEFAULT as utility, and everything else refused. No root needed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "lib/class-map.h"
#include "core/class-relpri.h"

static void test_apple_values(void **state) {
        /* The numbers are ABI: Apple's, in <qos/qos.h>. */
        assert_int_equal(QOS_CLASS_USER_INTERACTIVE, 0x21);
        assert_int_equal(QOS_CLASS_USER_INITIATED, 0x19);
        assert_int_equal(QOS_CLASS_DEFAULT, 0x15);
        assert_int_equal(QOS_CLASS_UTILITY, 0x11);
        assert_int_equal(QOS_CLASS_BACKGROUND, 0x09);
        assert_int_equal(QOS_CLASS_UNSPECIFIED, 0x00);
        assert_int_equal(QOS_MIN_RELATIVE_PRIORITY, QCLASS_RELPRI_MIN);
        assert_int_equal(sizeof(qos_class_t), 4);
}

static void test_both_ways(void **state) {
        static const struct {
                qos_class_t apple;
                QClass core;
                qos_class_t back;
        } cases[] = {
                { QOS_CLASS_USER_INTERACTIVE, QCLASS_USER_INTERACTIVE, QOS_CLASS_USER_INTERACTIVE },
                { QOS_CLASS_USER_INITIATED, QCLASS_USER_INITIATED, QOS_CLASS_USER_INITIATED },
                { QOS_CLASS_DEFAULT, QCLASS_UTILITY, QOS_CLASS_UTILITY },
                { QOS_CLASS_UTILITY, QCLASS_UTILITY, QOS_CLASS_UTILITY },
                { QOS_CLASS_BACKGROUND, QCLASS_BACKGROUND, QOS_CLASS_BACKGROUND },
                { QOS_CLASS_UNSPECIFIED, QCLASS_UNSPECIFIED, QOS_CLASS_UNSPECIFIED },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                QClass q;
                assert_int_equal(class_from_apple(cases[i].apple, &q), 0);
                assert_int_equal(q, cases[i].core);
                assert_int_equal(class_to_apple(q), cases[i].back);
        }
}

/* Apple's order is the core's order. */
static void test_order_kept(void **state) {
        static const qos_class_t ordered[] = {
                QOS_CLASS_BACKGROUND, QOS_CLASS_UTILITY, QOS_CLASS_USER_INITIATED, QOS_CLASS_USER_INTERACTIVE,
        };
        for (size_t i = 1; i < sizeof ordered / sizeof ordered[0]; i++) {
                QClass lo, hi;
                class_from_apple(ordered[i - 1], &lo);
                class_from_apple(ordered[i], &hi);
                assert_true(ordered[i - 1] < ordered[i]);
                assert_true(lo < hi);
        }
}

static void test_invalid_values(void **state) {
        /* 0x05 is Apple's private MAINTENANCE class, which libqos lacks. */
        static const int bad[] = { 0x05, 0x01, 0x10, 0x20, 0x22, 0xff, -1, 0x7fffffff };
        QClass q = QCLASS_USER_INTERACTIVE;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                assert_int_equal(class_from_apple((qos_class_t) bad[i], &q), -EINVAL);
                assert_null(qos_class_to_string((qos_class_t) bad[i]));
        }
        assert_int_equal(q, QCLASS_USER_INTERACTIVE); /* not written */
        assert_int_equal(class_to_apple(_QCLASS_MAX), QOS_CLASS_UNSPECIFIED);
}

static void test_request_validation(void **state) {
        QClass q;
        assert_int_equal(class_request_from_apple(QOS_CLASS_UTILITY, 0, &q), 0);
        assert_int_equal(q, QCLASS_UTILITY);
        assert_int_equal(class_request_from_apple(QOS_CLASS_BACKGROUND, QOS_MIN_RELATIVE_PRIORITY, &q), 0);
        assert_int_equal(class_request_from_apple(QOS_CLASS_UNSPECIFIED, 0, &q), -EINVAL);
        assert_int_equal(class_request_from_apple(QOS_CLASS_UTILITY, 1, &q), -EINVAL);
        assert_int_equal(class_request_from_apple(QOS_CLASS_UTILITY, QOS_MIN_RELATIVE_PRIORITY - 1, &q), -EINVAL);
        assert_int_equal(class_request_from_apple((qos_class_t) 0x05, 0, &q), -EINVAL);
}

static void test_strings(void **state) {
        qos_class_t c = QOS_CLASS_UNSPECIFIED;
        assert_string_equal(qos_class_to_string(QOS_CLASS_USER_INTERACTIVE), "user-interactive");
        assert_string_equal(qos_class_to_string(QOS_CLASS_DEFAULT), "utility");
        assert_string_equal(qos_class_to_string(QOS_CLASS_UNSPECIFIED), "unspecified");
        assert_int_equal(qos_class_from_string("QOS_CLASS_USER_INITIATED", &c), 0);
        assert_int_equal(c, QOS_CLASS_USER_INITIATED);
        assert_int_equal(qos_class_from_string("default", &c), 0);
        assert_int_equal(c, QOS_CLASS_UTILITY);
        assert_int_equal(qos_class_from_string("bg", &c), 0);
        assert_int_equal(c, QOS_CLASS_BACKGROUND);
        assert_int_equal(qos_class_from_string("maintenance", &c), -EINVAL);
        assert_int_equal(qos_class_from_string("", &c), -EINVAL);
        assert_int_equal(qos_class_from_string(NULL, &c), -EINVAL);
        assert_int_equal(c, QOS_CLASS_BACKGROUND);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_apple_values),
                cmocka_unit_test(test_both_ways),
                cmocka_unit_test(test_order_kept),
                cmocka_unit_test(test_invalid_values),
                cmocka_unit_test(test_request_validation),
                cmocka_unit_test(test_strings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
