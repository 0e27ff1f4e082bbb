/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The last reload as each reader sees it: the system's messages for all,
 * a user's files' messages for that user and root only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "state/reload-status.h"

#define ALICE 1000
#define BOB 1001

static UserRuleDir dirs[] = {
        { ALICE, "/home/alice/.config/qos/apps.d" },
        { BOB, "/home/bob/.config/qos/apps.d" },
};
static gid_t gids[] = { ALICE, BOB };
static char *homes[] = { "/home/alice", "/home/bob" };
static const UserDirs users = { .dirs = dirs, .gids = gids, .homes = homes, .n = 2 };

static void expect_message(const ReloadStatus *st, uid_t viewer, const char *want) {
        char *m = reload_status_message(st, viewer);
        assert_non_null(m);
        assert_string_equal(m, want);
        free(m);
}

static void test_each_sees_their_own(void **state) {
        DiagList diag = {};
        ReloadStatus st = {};
        assert_int_equal(diag_add(&diag, LOG_ERR, "/etc/qos/apps.d/sys.conf", 2, "bad"), 0);
        assert_int_equal(diag_add(&diag, LOG_ERR, "/home/alice/.config/qos/apps.d/a.conf", 3, "alice's"), 0);
        assert_int_equal(diag_add(&diag, LOG_WARNING, "/home/bob/.config/qos/apps.d/w.conf", 1, "a warning"), 0);
        /* A refused directory is named as itself. */
        assert_int_equal(diag_add(&diag, LOG_ERR, "/home/bob/.config/qos/apps.d", 0, "refused"), 0);
        assert_int_equal(reload_status_system_errors(&diag, &users), 1);
        assert_int_equal(reload_status_set(&st, &diag, &users, NULL), 0);

        expect_message(&st, 0, "/etc/qos/apps.d/sys.conf:2: bad\n"
                               "/home/alice/.config/qos/apps.d/a.conf:3: alice's\n"
                               "/home/bob/.config/qos/apps.d:0: refused");
        expect_message(&st, ALICE, "/etc/qos/apps.d/sys.conf:2: bad\n/home/alice/.config/qos/apps.d/a.conf:3: alice's");
        expect_message(&st, BOB, "/etc/qos/apps.d/sys.conf:2: bad\n/home/bob/.config/qos/apps.d:0: refused");
        expect_message(&st, 1002, "/etc/qos/apps.d/sys.conf:2: bad");
        expect_message(&st, (uid_t) -1, "/etc/qos/apps.d/sys.conf:2: bad");
        assert_false(reload_status_ok(&st, 1002));
        diag_list_clear(&diag);

        /* Without the system's error: only the users with errors see one. */
        assert_int_equal(diag_add(&diag, LOG_ERR, "/home/alice/.config/qos/apps.d/a.conf", 3, "alice's"), 0);
        assert_int_equal(reload_status_system_errors(&diag, &users), 0);
        assert_int_equal(reload_status_set(&st, &diag, &users, NULL), 0);
        assert_false(reload_status_ok(&st, 0));
        assert_false(reload_status_ok(&st, ALICE));
        assert_true(reload_status_ok(&st, BOB));
        expect_message(&st, BOB, "loaded 0 rules");
        diag_list_clear(&diag);

        /* Bob's own reload says his part; alice's stays hers. */
        assert_int_equal(diag_add(&diag, LOG_ERR, "/home/bob/.config/qos/apps.d/b.conf", 1, "bob's"), 0);
        assert_int_equal(reload_status_set_user(&st, BOB, &diag, &users, 0), 0);
        expect_message(&st, BOB, "/home/bob/.config/qos/apps.d/b.conf:1: bob's");
        expect_message(&st, ALICE, "/home/alice/.config/qos/apps.d/a.conf:3: alice's");
        diag_list_clear(&diag);
        assert_int_equal(reload_status_set_user(&st, BOB, &diag, &users, 0), 0);
        assert_true(reload_status_ok(&st, BOB));
        reload_status_clear(&st);
}

/* A name never adds a line of its own, and reaches the bus as text. */
static void test_names_escaped(void **state) {
        DiagList diag = {};
        ReloadStatus st = {};
        assert_int_equal(diag_add(&diag, LOG_ERR, "/home/bob/.config/qos/apps.d/x\nforged: y\377.conf", 0,
                                  "not a regular file"), 0);
        assert_int_equal(reload_status_set(&st, &diag, &users, NULL), 0);
        expect_message(&st, BOB, "/home/bob/.config/qos/apps.d/x\\x0aforged: y\\xff.conf:0: not a regular file");
        diag_list_clear(&diag);
        reload_status_clear(&st);
}

static void test_failed_load(void **state) {
        ReloadStatus st = {};
        expect_message(&st, 0, "");
        assert_int_equal(reload_status_failed(&st, "Cannot allocate memory"), 0);
        expect_message(&st, BOB, "Cannot allocate memory");
        assert_false(reload_status_ok(&st, BOB));
        reload_status_clear(&st);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_each_sees_their_own),
                cmocka_unit_test(test_names_escaped),
                cmocka_unit_test(test_failed_load),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
