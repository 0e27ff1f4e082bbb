/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "file-name.h"

/* The length of the valid UTF-8 sequence at s (1..4), or 0 (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_sequence(const unsigned char *s) {
        size_t n;
        uint32_t c;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2, c = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3, c = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4, c = s[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80) /* the NUL ends a sequence too */
                        return 0;
                c = c << 6 | (s[i] & 0x3f);
        }
        if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
                return 0;
        return n;
}

/* How many bytes at s stay as they are (0: the byte at s is escaped). */
static size_t kept(const char *s, bool first) {
        unsigned char c = (unsigned char) *s;
        if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || (first && c == '.'))
                return 0;
        return utf8_sequence((const unsigned char *) s);
}

/* Copy what stays as it is at *s to *p, both moved on; false: nothing. */
static bool copy_kept(char **p, const char **s, bool first) {
        size_t k = kept(*s, first);
        memcpy(*p, *s, k);
        *p += k;
        *s += k;
        return k > 0;
}

size_t file_name_escaped_len(const char *name) {
        size_t len = 0;
        for (const char *s = name; *s;) {
                size_t k = kept(s, s == name);
                len += k ? k : 4;
                s += k ? k : 1;
        }
        return len;
}

char *file_name_escape(const char *name) {
        static const char hex[] = "0123456789abcdef";
        char *f = malloc(file_name_escaped_len(name) + 1), *p = f;

        if (!f)
                return NULL;
        for (const char *s = name; *s;) {
                if (copy_kept(&p, &s, s == name))
                        continue;
                unsigned char c = (unsigned char) *s++;
                *p++ = '\\';
                *p++ = 'x';
                *p++ = hex[c >> 4];
                *p++ = hex[c & 15];
        }
        *p = '\0';
        return f;
}

static int hex_digit(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int file_name_unescape(const char *s, char **ret) {
        char *name = malloc(strlen(s) + 1), *p = name;

        if (!name)
                return -ENOMEM;
        for (const char *f = s; *f;) {
                if (copy_kept(&p, &f, f == s))
                        continue;
                int hi = f[0] == '\\' && f[1] == 'x' ? hex_digit(f[2]) : -1;
                int lo = hi >= 0 ? hex_digit(f[3]) : -1;
                if (lo < 0) {
                        free(name);
                        return -EINVAL;
                }
                *p++ = (char) (hi << 4 | lo);
                f += 4;
        }
        *p = '\0';
        /* Canonical only: what escaping this gives back must be s, so that
         * one name has exactly one file name ("\x61" is not "a"). */
        char *again = file_name_escape(name);
        int r = !again ? -ENOMEM : strcmp(again, s) != 0 ? -EINVAL : 0;
        free(again);
        if (r < 0) {
                free(name);
                return r;
        }
        *ret = name;
        return 0;
}
