/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Choosing the cgroup hierarchy from mount tables seen on real machines:
 * this project's (v1 cpu beside an empty v2), Debian's systemd default
 * (v2 only), a container, an old combined cpu,cpuacct mount. No root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "core/cgroup-probe.h"

/* This machine: v1 cpu controller, an empty v2 hierarchy beside it. */
static const char hybrid[] =
        "25 1 0:23 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "26 25 0:24 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu\n"
        "27 25 0:25 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
        "28 25 0:26 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
        "35 25 0:33 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* Debian 12 with systemd: the unified hierarchy only. */
static const char unified[] =
        "24 1 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
        "26 24 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
        "rw,nsdelegate,memory_recursiveprot\n";

static void test_v1_cpu_is_chosen(void **state) {
        CgroupCaps c = {};
        cgroup_caps_parse_mountinfo(hybrid, &c);
        assert_string_equal(c.v1_mount, "/sys/fs/cgroup/cpu");
        assert_true(c.v1_root);
        assert_string_equal(c.v2_mount, "/sys/fs/cgroup/unified");
        c.v1_files = true;
        cgroup_caps_decide(&c);
        assert_int_equal(c.backend, CGROUP_BACKEND_V1);
        assert_int_equal(c.missing, CGROUP_OK);
        assert_string_equal(c.mount, "/sys/fs/cgroup/cpu");
}

static void test_cpuacct_and_cpuset_are_not_cpu(void **state) {
        CgroupCaps c = {};
        cgroup_caps_parse_mountinfo("27 25 0:25 / /a rw - cgroup cgroup rw,cpuacct\n"
                                    "28 25 0:26 / /b rw - cgroup cgroup rw,cpuset\n",
                                    &c);
        assert_string_equal(c.v1_mount, "");
        cgroup_caps_decide(&c);
        assert_int_equal(c.backend, CGROUP_BACKEND_NONE);
        assert_int_equal(c.missing, CGROUP_NO_CPU_CONTROLLER);
}

static void test_combined_cpu_cpuacct(void **state) {
        CgroupCaps c = {};
        cgroup_caps_parse_mountinfo("30 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw shared:1 shared:2 - cgroup cgroup "
                                    "rw,cpu,cpuacct\n",
                                    &c);
        assert_string_equal(c.v1_mount, "/sys/fs/cgroup/cpu,cpuacct");
}

static void test_v1_files_missing(void **state) {
        CgroupCaps c = {};
        cgroup_caps_parse_mountinfo(hybrid, &c);
        cgroup_caps_decide(&c);
        assert_int_equal(c.backend, CGROUP_BACKEND_NONE);
        assert_int_equal(c.missing, CGROUP_V1_FILES_MISSING);
}

/* A container sees its own cgroup mounted as if it were the root: the
 * paths in /proc/TID/cgroup would not match, so it is not used. */
static void test_container_mount_is_refused(void **state) {
        CgroupCaps c = { .v1_files = true };
        cgroup_caps_parse_mountinfo("40 30 0:24 /docker/0123abcd /sys/fs/cgroup/cpu ro - cgroup cgroup rw,cpu\n", &c);
        assert_false(c.v1_root);
        cgroup_caps_decide(&c);
        assert_int_equal(c.missing, CGROUP_V1_NOT_ROOT);
}

static void test_root_mount_preferred_over_bind(void **state) {
        CgroupCaps c = {};
        cgroup_caps_parse_mountinfo("40 30 0:24 /sub /mnt/sub rw - cgroup cgroup rw,cpu\n"
                                    "41 30 0:24 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
                                    "42 30 0:24 /other /mnt/other rw - cgroup cgroup rw,cpu\n",
                                    &c);
        assert_string_equal(c.v1_mount, "/sys/fs/cgroup/cpu");
        assert_true(c.v1_root);
}

static void test_escaped_mount_point(void **state) {
        CgroupCaps c = {};
        cgroup_caps_parse_mountinfo("41 30 0:24 / /mnt/my\\040cgroups rw - cgroup cgroup rw,cpu\n", &c);
        assert_string_equal(c.v1_mount, "/mnt/my cgroups");
}

/* v2: used only where the cpu controller is already enabled below the
 * root; qosd does not enable it for the whole machine. */
static void test_v2_needs_cpu_enabled(void **state) {
        CgroupCaps c = {};
        cgroup_caps_parse_mountinfo(unified, &c);
        assert_string_equal(c.v1_mount, "");
        assert_string_equal(c.v2_mount, "/sys/fs/cgroup");
        cgroup_caps_decide(&c);
        assert_int_equal(c.missing, CGROUP_NO_CPU_CONTROLLER);

        c.v2_cpu_available = true;
        cgroup_caps_decide(&c);
        assert_int_equal(c.backend, CGROUP_BACKEND_NONE);
        assert_int_equal(c.missing, CGROUP_V2_CPU_NOT_ENABLED);

        c.v2_cpu_enabled = true;
        cgroup_caps_decide(&c);
        assert_int_equal(c.missing, CGROUP_V2_NO_THREADED);

        c.v2_threaded = true;
        cgroup_caps_decide(&c);
        assert_int_equal(c.backend, CGROUP_BACKEND_V2);
        assert_string_equal(c.mount, "/sys/fs/cgroup");
}

/* Where v1 has the cpu controller, v2 cannot have it. */
static void test_v1_wins_over_v2(void **state) {
        CgroupCaps c = { .v1_files = true, .v2_cpu_available = true, .v2_cpu_enabled = true, .v2_threaded = true };
        cgroup_caps_parse_mountinfo(hybrid, &c);
        cgroup_caps_decide(&c);
        assert_int_equal(c.backend, CGROUP_BACKEND_V1);
}

static void test_garbage_is_ignored(void **state) {
        CgroupCaps c = {};
        cgroup_caps_parse_mountinfo("\n\nnot a mount line\n1 2 3 4\n5 6 7 / /x rw - cgroup\n", &c);
        cgroup_caps_decide(&c);
        assert_int_equal(c.backend, CGROUP_BACKEND_NONE);
        for (CgroupMissing m = CGROUP_OK; m <= CGROUP_V2_NO_THREADED; m++)
                assert_non_null(cgroup_missing_to_string(m));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_v1_cpu_is_chosen),
                cmocka_unit_test(test_cpuacct_and_cpuset_are_not_cpu),
                cmocka_unit_test(test_combined_cpu_cpuacct),
                cmocka_unit_test(test_v1_files_missing),
                cmocka_unit_test(test_container_mount_is_refused),
                cmocka_unit_test(test_root_mount_preferred_over_bind),
                cmocka_unit_test(test_escaped_mount_point),
                cmocka_unit_test(test_v2_needs_cpu_enabled),
                cmocka_unit_test(test_v1_wins_over_v2),
                cmocka_unit_test(test_garbage_is_ignored),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
