/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU lists, and the kinds of CPU read from sysfs trees of four machines
 * (tests/data/sysfs/README.md) and from qosd.conf's lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/cpu-kinds.h"

static const char *list(const CpuMask *m) {
        static char buf[4][128];
        static unsigned i;
        return cpu_mask_format(m, buf[i++ % 4], sizeof buf[0]);
}

static void test_mask_lists(void **state) {
        CpuMask m;
        assert_int_equal(cpu_mask_parse("0-3,8, 10-11\n", &m), 0);
        assert_int_equal(cpu_mask_count(&m), 7);
        assert_string_equal(list(&m), "0-3,8,10-11");
        assert_int_equal(cpu_mask_parse("", &m), 0);
        assert_true(cpu_mask_is_empty(&m));
        assert_string_equal(list(&m), "none");
        assert_int_equal(cpu_mask_parse("255", &m), 0);
        assert_true(cpu_mask_test(&m, 255));
        assert_int_equal(cpu_mask_parse("256", &m), -ERANGE);
        assert_int_equal(cpu_mask_parse("99999999999999999999", &m), -ERANGE);
        const char *bad[] = { "3-1", "a", "1,,2", "1-", "-1", "1 2", "0x3", "+1", "1;2" };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                assert_int_equal(cpu_mask_parse(bad[i], &m), -EINVAL);

        CpuMask a, b;
        assert_int_equal(cpu_mask_parse("0-7", &a), 0);
        assert_int_equal(cpu_mask_parse("4-11", &b), 0);
        CpuMask both = cpu_mask_and(&a, &b), rest = cpu_mask_minus(&a, &b);
        assert_string_equal(list(&both), "4-7");
        assert_string_equal(list(&rest), "0-3");

        /* A list too long for the buffer is cut, and says so. */
        char small[12];
        assert_int_equal(cpu_mask_parse("0,2,4,6,8,10,12", &m), 0);
        assert_string_equal(cpu_mask_format(&m, small, sizeof small), "0,2,4,6...");
}

static CpuKinds read_fixture(const char *name) {
        char sys[512];
        CpuKinds k;
        snprintf(sys, sizeof sys, "%s/sysfs/%s", QOS_TEST_DATA, name);
        assert_int_equal(cpu_kinds_read(sys, &k), 0);
        return k;
}

static void test_alder_lake(void **state) {
        CpuKinds k = read_fixture("alder-lake-i7-1260p");
        assert_int_equal(k.source, CPU_KINDS_INTEL_HYBRID);
        assert_string_equal(list(&k.performance), "0-7");
        assert_string_equal(list(&k.efficient), "8-15");
        assert_true(cpu_mask_is_empty(&k.low_power));
        assert_true(cpu_kinds_hybrid(&k));
        char buf[256];
        assert_string_equal(cpu_kinds_describe(&k, buf, sizeof buf), "performance 0-7, efficient 8-15");
}

static void test_meteor_lake(void **state) {
        CpuKinds k = read_fixture("meteor-lake-ultra7-155h");
        assert_int_equal(k.source, CPU_KINDS_INTEL_HYBRID);
        assert_string_equal(list(&k.performance), "0-11");
        assert_string_equal(list(&k.efficient), "12-21");
        assert_string_equal(list(&k.low_power), "20-21");
        assert_non_null(strstr(k.why, "low-power"));
        char buf[256];
        assert_string_equal(cpu_kinds_describe(&k, buf, sizeof buf),
                            "performance 0-11, efficient 12-21 (low-power 20-21)");
}

static void test_rk3588(void **state) {
        CpuKinds k = read_fixture("rk3588");
        assert_int_equal(k.source, CPU_KINDS_CAPACITY);
        assert_string_equal(list(&k.performance), "4-7");
        assert_string_equal(list(&k.efficient), "0-3");
        assert_non_null(strstr(k.why, "cpu_capacity"));
}

static void test_one_kind(void **state) {
        CpuKinds k = read_fixture("ryzen-7-5800x");
        assert_int_equal(k.source, CPU_KINDS_ONE_KIND);
        assert_string_equal(list(&k.present), "0-15");
        assert_false(cpu_kinds_hybrid(&k));
        char buf[256];
        assert_string_equal(cpu_kinds_describe(&k, buf, sizeof buf), "all 0-15 alike");
}

static void test_settings(void **state) {
        const char *bad = NULL;
        CpuKinds k = read_fixture("ryzen-7-5800x");
        assert_int_equal(cpu_kinds_override(&k, NULL, NULL, &bad), 0);
        assert_int_equal(k.source, CPU_KINDS_ONE_KIND);

        assert_int_equal(cpu_kinds_override(&k, "12-15", NULL, &bad), 0);
        assert_int_equal(k.source, CPU_KINDS_SETTINGS);
        assert_string_equal(list(&k.efficient), "12-15");
        assert_string_equal(list(&k.performance), "0-11");

        k = read_fixture("ryzen-7-5800x");
        assert_int_equal(cpu_kinds_override(&k, NULL, "0-3", &bad), 0);
        assert_string_equal(list(&k.efficient), "4-15");

        /* Overlap, nothing left for the other kind, garbage: the kernel's
         * word stands, and the key is named. */
        k = read_fixture("ryzen-7-5800x");
        assert_int_equal(cpu_kinds_override(&k, "0-8", "8-15", &bad), -EINVAL);
        assert_string_equal(bad, "EfficientCPUs");
        assert_int_equal(cpu_kinds_override(&k, NULL, "0-15", &bad), -EINVAL);
        assert_string_equal(bad, "PerformanceCPUs");
        assert_int_equal(cpu_kinds_override(&k, "x", NULL, &bad), -EINVAL);
        assert_int_equal(cpu_kinds_override(&k, "20-23", NULL, &bad), -EINVAL);
        assert_int_equal(k.source, CPU_KINDS_ONE_KIND);
}

static void test_missing_tree(void **state) {
        CpuKinds k;
        assert_true(cpu_kinds_read("/nonexistent-sysfs", &k) < 0);
        assert_int_equal(k.source, CPU_KINDS_ONE_KIND);
        assert_false(cpu_kinds_hybrid(&k));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mask_lists),   cmocka_unit_test(test_alder_lake),
                cmocka_unit_test(test_meteor_lake),  cmocka_unit_test(test_rk3588),
                cmocka_unit_test(test_one_kind),     cmocka_unit_test(test_settings),
                cmocka_unit_test(test_missing_tree),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
