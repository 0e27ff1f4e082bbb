/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Names as file names: readable where the name is valid UTF-8, reversible
 * always, so distinct names never share a file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/file-name.h"

static void round_trip(const char *name, const char *want) {
        char *f = file_name_escape(name), *back = NULL;
        assert_non_null(f);
        if (want)
                assert_string_equal(f, want);
        assert_int_equal(strlen(f), file_name_escaped_len(name));
        assert_null(strchr(f, '/'));
        assert_int_equal(file_name_unescape(f, &back), 0);
        assert_string_equal(back, name);
        free(back);
        free(f);
}

static void test_readable(void **state) {
        round_trip("firefox", "firefox");
        round_trip("Web Content", "Web Content");
        round_trip("gtk+-app@2 (x86)", "gtk+-app@2 (x86)");
        round_trip("集英社マンガ祭.exe", "集英社マンガ祭.exe");
        round_trip("原神.exe", "原神.exe");
        round_trip("Ωmega ~ ½.exe", "Ωmega ~ ½.exe");
        round_trip("😀", "😀"); /* four bytes */
        round_trip("odd*name?[x];y #z", "odd*name?[x];y #z");
        round_trip("trailing ", "trailing ");
}

static void test_escaped(void **state) {
        round_trip("/usr/bin/foo", "\\x2fusr\\x2fbin\\x2ffoo");
        round_trip("back\\slash", "back\\x5cslash");
        round_trip(".hidden", "\\x2ehidden");
        round_trip(".", "\\x2e");
        round_trip("..", "\\x2e.");
        round_trip("a.b", "a.b");
        round_trip("tab\there", "tab\\x09here");
        round_trip("del\x7f", "del\\x7f");
        /* Not UTF-8: a lone continuation byte, a Latin-1 é, a cut sequence,
         * an overlong '/', a surrogate, beyond U+10FFFF. */
        round_trip("\x80", "\\x80");
        round_trip("caf\xe9", "caf\\xe9");
        round_trip("\xe5\x8e", "\\xe5\\x8e");
        round_trip("\xc0\xaf", "\\xc0\\xaf");
        round_trip("\xed\xa0\x80", "\\xed\\xa0\\x80");
        round_trip("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
        /* Valid sequences around an invalid byte stay. */
        round_trip("原\xff神", "原\\xff神");
}

/* Names that differ only where a byte is escaped, or only in non-ASCII
 * characters, still give distinct file names. */
static void test_unique(void **state) {
        static const char *const names[] = {
                "原神.exe", "原魔.exe", "神原.exe", "____.exe", "??.exe", "\\x2fusr", "/usr", "-usr",
                "usr-bin-foo", "/usr/bin/foo", "usr/bin/foo", "\\x2ehidden", ".hidden", "_hidden",
                "caf\xe9", "café", "caf\\xe9", "a b", "a_b", "a\tb", "a\\x09b", "\xe5\x8e", "\xe5\x8e\x9f",
        };
        size_t n = sizeof names / sizeof names[0];
        char *f[sizeof names / sizeof names[0]];
        for (size_t i = 0; i < n; i++) {
                f[i] = file_name_escape(names[i]);
                assert_non_null(f[i]);
                round_trip(names[i], NULL);
        }
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (strcmp(f[i], f[j]) == 0)
                                fail_msg("'%s' and '%s' both escape to '%s'", names[i], names[j], f[i]);
        for (size_t i = 0; i < n; i++)
                free(f[i]);
}

/* Only what escaping makes is read back: one file name per name. */
static void test_unescape_rejects(void **state) {
        static const char *const bad[] = {
                "\\x61",      /* 'a' needs no escape */
                "\\x2F",      /* uppercase hex */
                "\\",         /* cut */
                "\\x2",       /* cut */
                "\\y2f",      /* not \x */
                "a/b",        /* a raw '/' */
                ".hidden",    /* a raw leading '.' */
                "caf\xe9",    /* raw bytes that are not UTF-8 */
                "\\x00",      /* NUL */
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                char *name = NULL;
                if (file_name_unescape(bad[i], &name) != -EINVAL)
                        fail_msg("'%s' read back as '%s'", bad[i], name ? name : "(null)");
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_readable),
                cmocka_unit_test(test_escaped),
                cmocka_unit_test(test_unique),
                cmocka_unit_test(test_unescape_rejects),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
