/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What qosctl and qosd's log print of others' names: text stays; control
 * characters, directional overrides and bytes that are not UTF-8 become
 * \xNN; nothing a terminal would act on gets through, whatever the bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/term-escape.h"
#include "core/utf8-escape.h"
#include "core/utf8.h"

/* Valid UTF-8 without C0 (but a newline where lines is set), DEL, C1 or a
 * directional override or isolate. */
static void assert_printable(const char *s, bool lines) {
        assert_true(utf8_is_valid(s));
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if ((*p < 0x20 && !(lines && *p == '\n')) || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) ||
                    (*p == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
                                    (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))))
                        fail_msg("byte %#x at %zu of '%s'", *p, (size_t) (p - (const unsigned char *) s), s);
        }
}

static void check(const char *s, const char *want, const char *want_lines) {
        char *e = term_escape(s), *l = term_escape_lines(s);
        assert_non_null(e);
        assert_non_null(l);
        assert_string_equal(e, want);
        assert_string_equal(l, want_lines ?: want);
        assert_printable(e, false);
        assert_printable(l, true);
        free(e);
        free(l);
}

static void test_text_stays(void **state) {
        check("", "", NULL);
        check("firefox", "firefox", NULL);
        check("Web Content 原神 😀 ½", "Web Content 原神 😀 ½", NULL);
        check("\xc2\xa0nbsp", "\xc2\xa0nbsp", NULL); /* U+00A0 is past C1 */
        /* qosd's own escapes read as they came. */
        check("A\\xffB back\\x5cslash", "A\\xffB back\\x5cslash", NULL);
}

static void test_controls(void **state) {
        check("\x1b]0;PWNED\a\x1b[2J", "\\x1b]0;PWNED\\x07\\x1b[2J", NULL);
        check("tab\there", "tab\\x09here", NULL);
        check("cr\rdel\x7f", "cr\\x0ddel\\x7f", NULL);
        check("one\ntwo", "one\\x0atwo", "one\ntwo");
        check("C\xc2\x9b" "2J", "C\\xc2\\x9b2J", NULL); /* CSI as one character */
        check("\xc2\x80\xc2\x9f", "\\xc2\\x80\\xc2\\x9f", NULL);
}

/* A name that would reverse the rest of its line ("Trojan Source"). */
static void test_bidi(void **state) {
        check("evil\xe2\x80\xaetxt.exe", "evil\\xe2\\x80\\xaetxt.exe", NULL); /* U+202E */
        check("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9", "\\xe2\\x80\\xaa\\xe2\\x81\\xa6\\xe2\\x81\\xa9", NULL);
        check("\xe2\x80\xa9 \xe2\x81\xaa", "\xe2\x80\xa9 \xe2\x81\xaa", NULL); /* U+2029, U+206A: not these */
}

static void test_not_utf8(void **state) {
        check("A\377B", "A\\xffB", NULL);
        check("caf\xe9", "caf\\xe9", NULL);
        check("\xe5\x8e", "\\xe5\\x8e", NULL); /* cut */
        check("\xc0\x9b", "\\xc0\\x9b", NULL); /* overlong */
        check("\xc2", "\\xc2", NULL);
}

/* Every string of one or two bytes, and random ones: nothing gets
 * through raw, straight or after qosd's escaping for the bus. */
static void test_any_bytes(void **state) {
        char s[64] = {};
        uint32_t x = 88172645u;
        for (unsigned i = 0; i < 65536 + 20000; i++) {
                if (i < 65536) {
                        s[0] = (char) (i >> 8 ?: 1), s[1] = (char) (i & 0xff), s[2] = '\0';
                } else {
                        size_t n = 0, len;
                        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                        len = x % (sizeof s - 1);
                        while (n < len) {
                                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                                s[n] = (char) (x & 0xff);
                                n += s[n] != '\0';
                        }
                        s[n] = '\0';
                }
                char *bus = utf8_escape(s);
                assert_non_null(bus);
                const char *in[] = { s, bus };
                for (size_t k = 0; k < 2; k++) {
                        char *e = term_escape(in[k]), *l = term_escape_lines(in[k]);
                        assert_non_null(e);
                        assert_non_null(l);
                        assert_printable(e, false);
                        assert_printable(l, true);
                        free(e);
                        free(l);
                }
                free(bus);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_text_stays),
                cmocka_unit_test(test_controls),
                cmocka_unit_test(test_bidi),
                cmocka_unit_test(test_not_utf8),
                cmocka_unit_test(test_any_bytes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
