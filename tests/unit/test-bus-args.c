/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The values SetThreadClass accepts, as data/org.qosd.QoS1.Broker.md lists them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "caller/bus-args.h"

static int check(int32_t tid, uint64_t start, const char *class, int32_t relpri) {
        SetThreadClassArgs a;
        const char *why = NULL;
        int r = bus_args_check_set_thread_class(tid, start, class, relpri, &a, &why);
        if (r < 0)
                assert_non_null(why);
        return r;
}

static void test_valid(void **state) {
        SetThreadClassArgs a;
        const char *why;
        assert_int_equal(bus_args_check_set_thread_class(42, 7, "user-interactive", -15, &a, &why), 0);
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

/* BeginOverride ("itits") and BeginLockOverride ("ititst"). */
static void test_begin_override(void **state) {
        BeginOverrideArgs a;
        const char *why = NULL;
        assert_int_equal(bus_args_check_begin_override(10, 1, 11, 2, "utility", false, 0, &a, &why), 0);
        assert_int_equal(a.waiter, 10);
        assert_int_equal(a.owner, 11);
        assert_int_equal(a.waiter_start, 1);
        assert_int_equal(a.owner_start, 2);
        assert_int_equal(a.class, QCLASS_UTILITY);
        assert_int_equal(a.lock, 0);
        assert_int_equal(bus_args_check_begin_override(10, 1, 11, 2, "background", true, 0x7f00, &a, &why), 0);
        assert_int_equal(a.lock, 0x7f00);
        /* What BeginOverride always took, it still takes: libqos's names. */
        assert_int_equal(bus_args_check_begin_override(10, 1, 11, 2, "ui", false, 0, &a, &why), 0);
        assert_int_equal(a.class, QCLASS_USER_INTERACTIVE);
        /* BeginOverride ignores a lock it does not have. */
        assert_int_equal(bus_args_check_begin_override(10, 1, 11, 2, "utility", false, 5, &a, &why), 0);
        assert_int_equal(a.lock, 0);

        const struct {
                int32_t w, o;
                uint64_t ws, os;
                const char *class;
                bool with_lock;
                uint64_t lock;
        } bad[] = {
                { 0, 11, 1, 2, "utility", false, 0 },     { 10, -1, 1, 2, "utility", false, 0 },
                { 10, 11, 0, 2, "utility", false, 0 },    { 10, 11, 1, 0, "utility", false, 0 },
                { 10, 11, 1, 2, "unspecified", false, 0 }, { 10, 11, 1, 2, "", false, 0 },
                { 10, 11, 1, 2, NULL, false, 0 },         { 10, 11, 1, 2, "utility", true, 0 },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                why = NULL;
                assert_int_equal(bus_args_check_begin_override(bad[i].w, bad[i].ws, bad[i].o, bad[i].os, bad[i].class,
                                                             bad[i].with_lock, bad[i].lock, &a, &why),
                                 -EINVAL);
                assert_non_null(why);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_begin_override),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
