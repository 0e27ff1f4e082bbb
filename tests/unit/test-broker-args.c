/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The values SetThreadClass accepts, as data/org.qosd.QoS1.Broker.md lists them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "broker-args.h"

static int check(int32_t tid, uint64_t start, const char *class, int32_t relpri) {
        SetThreadClassArgs a;
        const char *why = NULL;
        int r = broker_check_set_thread_class(tid, start, class, relpri, &a, &why);
        if (r < 0)
                assert_non_null(why);
        return r;
}

static void test_valid(void **state) {
        SetThreadClassArgs a;
        const char *why;
        assert_int_equal(broker_check_set_thread_class(42, 7, "user-interactive", -15, &a, &why), 0);
        assert_int_equal(a.tid, 42);
        assert_int_equal(a.start_time, 7);
        assert_int_equal(a.class, QCLASS_USER_INTERACTIVE);
        assert_int_equal(a.relpri, -15);
        assert_int_equal(check(1, 1, "user-initiated", 0), 0);
        assert_int_equal(check(1, UINT64_MAX, "utility", 0), 0);
        assert_int_equal(check(INT32_MAX, 1, "background", 0), 0);
}

static void test_invalid(void **state) {
        char long_name[200];
        memset(long_name, 'u', sizeof long_name - 1);
        long_name[sizeof long_name - 1] = 0;
        const char *bad_classes[] = { "", "unspecified", "UI", "ui", "User-Interactive", "default",
                                      "QOS_CLASS_UTILITY", "utility ", long_name, NULL };
        for (size_t i = 0; i < sizeof bad_classes / sizeof bad_classes[0]; i++)
                assert_int_equal(check(1, 1, bad_classes[i], 0), -EINVAL);
        assert_int_equal(check(0, 1, "utility", 0), -EINVAL);
        assert_int_equal(check(-1, 1, "utility", 0), -EINVAL);
        assert_int_equal(check(INT32_MIN, 1, "utility", 0), -EINVAL);
        assert_int_equal(check(1, 0, "utility", 0), -EINVAL);
        assert_int_equal(check(1, 1, "utility", 1), -EINVAL);
        assert_int_equal(check(1, 1, "utility", -16), -EINVAL);
        assert_int_equal(check(1, 1, "utility", INT32_MIN), -EINVAL);
        assert_int_equal(check(1, 1, "utility", INT32_MAX), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_invalid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
