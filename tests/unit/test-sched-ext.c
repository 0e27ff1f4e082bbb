/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sched_ext_read() on a made-up /sys below a temporary root: each state
 * the kernel can show, and what qosctl status prints for it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/sched-ext.h"

static char root[] = "/tmp/test-sched-ext.XXXXXX";

static void put(const char *file, const char *text) {
        char path[256];
        snprintf(path, sizeof path, "%s/sys/kernel/sched_ext/%s", root, file);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void test_states(void **state) {
        char dir[256], buf[SCHED_EXT_OPS_MAX + 32];
        SchedExt x;

        assert_non_null(mkdtemp(root));
        sched_ext_read(root, &x);
        assert_int_equal(x.state, SCHED_EXT_ABSENT);
        assert_string_equal(sched_ext_describe(&x, buf, sizeof buf), "fair (no sched_ext)");

        snprintf(dir, sizeof dir, "%s/sys/kernel/sched_ext/root", root);
        char cmd[300];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        assert_int_equal(system(cmd), 0);

        put("state", "disabled\n");
        sched_ext_read(root, &x);
        assert_int_equal(x.state, SCHED_EXT_DISABLED);
        assert_string_equal(sched_ext_describe(&x, buf, sizeof buf), "fair (sched_ext idle)");

        put("state", "enabled\n");
        put("root/ops", "qos\n");
        sched_ext_read(root, &x);
        assert_int_equal(x.state, SCHED_EXT_ENABLED);
        assert_string_equal(x.ops, "qos");
        assert_string_equal(sched_ext_describe(&x, buf, sizeof buf), "sched_ext \"qos\"");

        put("state", "disabling\n");
        sched_ext_read(root, &x);
        assert_int_equal(x.state, SCHED_EXT_CHANGING);

        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        assert_int_equal(system(cmd), 0);
}

static void test_parse(void **state) {
        assert_int_equal(sched_ext_state_from_string("disabled"), SCHED_EXT_DISABLED);
        assert_int_equal(sched_ext_state_from_string("enabled\n"), SCHED_EXT_ENABLED);
        assert_int_equal(sched_ext_state_from_string("enabledx"), SCHED_EXT_CHANGING);
        assert_int_equal(sched_ext_state_from_string("enabling"), SCHED_EXT_CHANGING);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_states),
                cmocka_unit_test(test_parse),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
