/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which cgroups are qosd's: exactly <prefix>.<class> below the root, for
 * a class that has a group. Everything else is another manager's. No root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/group.h"

static void check(const char *path, const char *prefix, GroupPlace place, QClass c) {
        QClass got;
        assert_int_equal(group_classify(path, prefix, &got), place);
        assert_int_equal(got, c);
}

static void test_root(void **state) {
        check("/", "qos", GROUP_PLACE_ROOT, QCLASS_UNSPECIFIED);
}

static void test_own_groups(void **state) {
        check("/qos.background", "qos", GROUP_PLACE_QOS, QCLASS_BACKGROUND);
        check("/qos.user-interactive", "qos", GROUP_PLACE_QOS, QCLASS_USER_INTERACTIVE);
        check("/qos.user-initiated", "qos", GROUP_PLACE_QOS, QCLASS_USER_INITIATED);
        check("/qos-test-42.background", "qos-test-42", GROUP_PLACE_QOS, QCLASS_BACKGROUND);
}

static void test_look_alikes_are_foreign(void **state) {
        check("/qos.utility", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED); /* utility has no group */
        check("/qos.background/sub", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
        check("/qos.bg", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
        check("/qosx.background", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
        check("/qos", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
        check("/x/qos.background", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
        /* Another instance's groups are not this one's. */
        check("/qos-test-42.background", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
        check("/qos.background", "qos-test-42", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
}

static void test_other_managers(void **state) {
        check("/system.slice/cron.service", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
        check("/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1234.scope", "qos",
              GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
        check("", "qos", GROUP_PLACE_FOREIGN, QCLASS_UNSPECIFIED);
}

/* cpu.uclamp.min/max as the kernel prints them back. */
static void test_uclamp_percent(void **state) {
        char buf[16];
        assert_string_equal(group_uclamp_percent(0, buf, sizeof buf), "0.00");
        assert_string_equal(group_uclamp_percent(256, buf, sizeof buf), "25.00");
        assert_string_equal(group_uclamp_percent(512, buf, sizeof buf), "50.00");
        assert_string_equal(group_uclamp_percent(1, buf, sizeof buf), "0.10");
        assert_string_equal(group_uclamp_percent(1023, buf, sizeof buf), "99.90");
        assert_string_equal(group_uclamp_percent(1024, buf, sizeof buf), "max");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_root),
                cmocka_unit_test(test_own_groups),
                cmocka_unit_test(test_look_alikes_are_foreign),
                cmocka_unit_test(test_other_managers),
                cmocka_unit_test(test_uclamp_percent),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
