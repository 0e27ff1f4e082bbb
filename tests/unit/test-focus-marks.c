/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What qosd takes from the foreground's sources without root: mutter's
 * user.xdg.inactive-since values (written by any user on their own
 * cgroups, so anything may be there) and the source names of SetFocus. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "focus/focus-mutter.h"
#include "core/focus-source.h"

static int parse(const char *s) {
        return mutter_mark_parse(s, strlen(s));
}

static void test_marks(void **state) {
        assert_int_equal(parse("-1"), 1);
        assert_int_equal(parse("1234567890"), 0);
        assert_int_equal(parse("0"), 0);
        /* As written by C (with the NUL) or by a shell (with a newline). */
        assert_int_equal(mutter_mark_parse("-1", 3), 1);
        assert_int_equal(parse("-1\n"), 1);
        assert_int_equal(parse("42\n"), 0);

        const char *bad[] = { "", "-2", "-", "garbage", "1x", " 1", "1 ", "+1", "--1", "- 1", "0x10",
                              "99999999999999999999999", "-9223372036854775809", "\n", "1\n\n" };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
                assert_int_equal(parse(bad[i]), -EINVAL);
        char huge[64];
        memset(huge, '1', sizeof huge);
        assert_int_equal(mutter_mark_parse(huge, sizeof huge), -EINVAL);
        assert_int_equal(mutter_mark_parse("1\0" "2", 3), -EINVAL);
}

static void test_source_names(void **state) {
        assert_true(focus_source_name_valid("x11"));
        assert_true(focus_source_name_valid("gnome-shell"));
        assert_true(focus_source_name_valid("abcdefghijklmnopqrstuvwxyz01234")); /* 31 */
        assert_false(focus_source_name_valid(""));
        assert_false(focus_source_name_valid("abcdefghijklmnopqrstuvwxyz012345")); /* 32 */
        assert_false(focus_source_name_valid("X11"));
        assert_false(focus_source_name_valid("a/b"));
        assert_false(focus_source_name_valid("a b"));
        assert_false(focus_source_name_valid("kwin\n"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_marks),
                cmocka_unit_test(test_source_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
