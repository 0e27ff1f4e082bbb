/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Any bytes as a string sd-bus takes: text stays as it is, everything else
 * becomes \xNN, and the escaped text always reads back to the very bytes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "core/utf8-escape.h"
#include "core/utf8.h"

static void test_sequence(void **state) {
        assert_int_equal(utf8_sequence("a"), 1);
        assert_int_equal(utf8_sequence("\x7f"), 1);
        assert_int_equal(utf8_sequence("é"), 2);
        assert_int_equal(utf8_sequence("\xc2\x9b"), 2); /* C1 controls are UTF-8 */
        assert_int_equal(utf8_sequence("原"), 3);
        assert_int_equal(utf8_sequence("😀"), 4);
        assert_int_equal(utf8_sequence("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
        /* A lone continuation byte, a Latin-1 é, a cut sequence, overlong
         * forms, a surrogate, beyond U+10FFFF, bytes UTF-8 never uses. */
        static const char *const bad[] = {
                "\x80", "\xe9t", "\xe5\x8e", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf",
                "\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xfe", "\xff",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                if (utf8_sequence(bad[i]) != 0)
                        fail_msg("bad sequence %zu taken as valid", i);
        assert_true(utf8_is_valid(""));
        assert_true(utf8_is_valid("Web Content 原神 😀\t\x1b"));
        assert_false(utf8_is_valid("A\xff" "B"));
        assert_false(utf8_is_valid("ab\xe5\x8e"));
        /* Noncharacters are UTF-8. */
        assert_true(utf8_is_valid("\xef\xbf\xbf\xef\xb7\x90\xf4\x8f\xbf\xbe"));
        uint32_t c;
        assert_int_equal(utf8_decode("\xef\xbf\xbf", &c), 3);
        assert_true(utf8_is_noncharacter(c));
        assert_int_equal(utf8_decode("\xef\xbf\xbd", &c), 3); /* U+FFFD, the replacement character */
        assert_false(utf8_is_noncharacter(c));
        assert_int_equal(utf8_decode("\xef\xb7\x8f", &c), 3); /* U+FDCF, just before them */
        assert_false(utf8_is_noncharacter(c));
        assert_int_equal(utf8_decode("\xf3\xbf\xbf\xbe", &c), 4); /* U+FFFFE */
        assert_true(utf8_is_noncharacter(c));
}

/* Whether sd-bus takes s as a string argument: its check, not ours. */
static bool bus_takes(const char *s) {
        static sd_bus *bus;
        sd_bus_message *m = NULL;
        int sv[2];
        if (!bus) /* a bus that never talks: enough to build messages */
                assert_true(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 && sd_bus_new(&bus) >= 0 &&
                            sd_bus_set_fd(bus, sv[0], sv[0]) >= 0 && sd_bus_start(bus) >= 0);
        assert_true(sd_bus_message_new_method_call(bus, &m, "org.qosd.QoS1", "/org/qosd/QoS1",
                                                   "org.qosd.QoS1.Manager", "Test") >= 0);
        int r = sd_bus_message_append(m, "s", s);
        sd_bus_message_unref(m);
        return r >= 0;
}

static void round_trip(const char *s, const char *want) {
        char *e = utf8_escape(s), *back = NULL;
        assert_non_null(e);
        if (want)
                assert_string_equal(e, want);
        assert_true(utf8_is_valid(e));
        if (!bus_takes(e))
                fail_msg("sd-bus refuses '%s'", e);
        assert_int_equal(utf8_unescape(e, &back), 0);
        assert_string_equal(back, s);
        free(back);
        free(e);
}

static void test_text_stays(void **state) {
        round_trip("", "");
        round_trip("firefox", "firefox");
        round_trip("/home/user/.config/qos/apps.d/game.conf:3", "/home/user/.config/qos/apps.d/game.conf:3");
        round_trip("集英社マンガ祭.exe", "集英社マンガ祭.exe");
        round_trip("😀 ½", "😀 ½");
        /* Valid UTF-8, however it would look on a terminal: that is for
         * whoever shows it to say. */
        round_trip("\x1b]0;PWNED\a\x1b[2J", "\x1b]0;PWNED\a\x1b[2J");
        round_trip("line\nline\ttab\x7f", "line\nline\ttab\x7f");
        round_trip("C\xc2\x9b" "2J", "C\xc2\x9b" "2J");
}

static void test_escaped(void **state) {
        round_trip("A\377B", "A\\xffB");
        round_trip("back\\slash", "back\\x5cslash");
        round_trip("\\xff", "\\x5cxff"); /* the text "\xff" is not the byte */
        round_trip("caf\xe9", "caf\\xe9");
        round_trip("\xe5\x8e", "\\xe5\\x8e");
        round_trip("\xc0\xaf", "\\xc0\\xaf");
        round_trip("\xed\xa0\x80", "\\xed\\xa0\\x80");
        round_trip("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
        round_trip("原\xff神", "原\\xff神");
        round_trip("x\377.conf:0: cannot read", "x\\xff.conf:0: cannot read");
        /* Noncharacters: UTF-8 that sd-bus refuses all the same. */
        round_trip("N\xef\xbf\xbf", "N\\xef\\xbf\\xbf");
        round_trip("\xef\xb7\x90", "\\xef\\xb7\\x90");
        round_trip("\xf3\xbf\xbf\xbf", "\\xf3\\xbf\\xbf\\xbf");
        round_trip("\xef\xbf\xbd \xef\xb7\x8f", "\xef\xbf\xbd \xef\xb7\x8f");
}

/* What sd-bus takes, without a backslash, stays as it is: qosd escapes
 * only what it must. Every character of three bytes, and a sample of four. */
static void test_only_what_must(void **state) {
        char s[5] = {};
        for (unsigned a = 0xe0; a <= 0xef; a++)
                for (unsigned b = 0x80; b <= 0xbf; b++)
                        for (unsigned c = 0x80; c <= 0xbf; c++) {
                                s[0] = (char) a, s[1] = (char) b, s[2] = (char) c;
                                char *e = utf8_escape(s);
                                assert_non_null(e);
                                if (bus_takes(s) != (strcmp(e, s) == 0))
                                        fail_msg("%02x %02x %02x: sd-bus %s it, escaped as '%s'", a, b, c,
                                                 bus_takes(s) ? "takes" : "refuses", e);
                                free(e);
                        }
        for (unsigned a = 0xf0; a <= 0xf4; a++)
                for (unsigned b = 0x80; b <= 0xbf; b++)
                        for (unsigned d = 0xbc; d <= 0xbf; d++) {
                                s[0] = (char) a, s[1] = (char) b, s[2] = (char) 0xbf, s[3] = (char) d;
                                char *e = utf8_escape(s);
                                assert_non_null(e);
                                if (bus_takes(s) != (strcmp(e, s) == 0))
                                        fail_msg("%02x %02x bf %02x: sd-bus %s it, escaped as '%s'", a, b, d,
                                                 bus_takes(s) ? "takes" : "refuses", e);
                                free(e);
                        }
}

/* Every string of one or two bytes, and of three from a sample: the
 * result is valid UTF-8 and reads back. */
static void test_all_short(void **state) {
        char s[4] = {};
        for (unsigned a = 1; a < 256; a++) {
                s[0] = (char) a;
                s[1] = '\0';
                round_trip(s, NULL);
                for (unsigned b = 1; b < 256; b++) {
                        s[1] = (char) b;
                        round_trip(s, NULL);
                }
        }
        static const unsigned char some[] = { 0x01, 0x2e, 0x5c, 0x78, 0x7f, 0x80, 0x9b, 0xbf, 0xc0, 0xc2,
                                              0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff };
        for (size_t a = 0; a < sizeof some; a++)
                for (size_t b = 0; b < sizeof some; b++)
                        for (size_t c = 0; c < sizeof some; c++) {
                                s[0] = (char) some[a], s[1] = (char) some[b], s[2] = (char) some[c];
                                round_trip(s, NULL);
                        }
}

/* Random byte strings, from a fixed seed so that a failure repeats. */
static void test_random(void **state) {
        uint32_t x = 2463534242u;
        char s[64];
        for (int i = 0; i < 20000; i++) {
                size_t n = 0;
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                size_t len = x % (sizeof s - 1);
                while (n < len) {
                        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                        s[n] = (char) (x & 0xff);
                        n += s[n] != '\0';
                }
                s[n] = '\0';
                round_trip(s, NULL);
        }
}

/* Distinct bytes give distinct text. */
static void test_unique(void **state) {
        static const char *const s[] = {
                "A\377B", "A\\xffB", "A\\x5cxffB", "AB", "A?B", "A\xef\xbf\xbd" "B", "caf\xe9", "café",
                "\\", "\\x5c", "\\\\",
        };
        size_t n = sizeof s / sizeof s[0];
        char *e[sizeof s / sizeof s[0]];
        for (size_t i = 0; i < n; i++)
                assert_non_null(e[i] = utf8_escape(s[i]));
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (strcmp(e[i], e[j]) == 0)
                                fail_msg("'%s' and '%s' both escape to '%s'", s[i], s[j], e[i]);
        for (size_t i = 0; i < n; i++)
                free(e[i]);
}

/* Only what escaping makes reads back: one text per byte string. */
/* For one line of a message: the line stays one line, the rest as the bus's. */
static void test_line(void **state) {
        char *e = utf8_escape_line("a\nb\rc\td\\e\377");
        assert_non_null(e);
        assert_string_equal(e, "a\\x0ab\\x0dc\td\\x5ce\\xff");
        free(e);
}

static void test_unescape_rejects(void **state) {
        static const char *const bad[] = {
                "\\x61",   /* 'a' needs no escape */
                "\\xFF",   /* uppercase hex */
                "\\",      /* cut */
                "\\x5",    /* cut */
                "\\y5c",   /* not \x */
                "\\x1g",   /* not hex */
                "caf\xe9", /* raw bytes that are not UTF-8 */
                "\\x00",   /* NUL */
                "\\xe9\\x",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                char *back = NULL;
                if (utf8_unescape(bad[i], &back) != -EINVAL)
                        fail_msg("'%s' read back as '%s'", bad[i], back ? back : "(null)");
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sequence),
                cmocka_unit_test(test_text_stays),
                cmocka_unit_test(test_escaped),
                cmocka_unit_test(test_only_what_must),
                cmocka_unit_test(test_all_short),
                cmocka_unit_test(test_random),
                cmocka_unit_test(test_unique),
                cmocka_unit_test(test_line),
                cmocka_unit_test(test_unescape_rejects),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
