/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8-escape.h"
#include "core/utf8.h"

/* Copy what stays as it is at *s to *p, both moved on; false: nothing. */
static bool copy_kept(char **p, const char **s, bool first, EscapeKeep keep) {
        size_t k = keep(*s, first);
        memcpy(*p, *s, k);
        *p += k;
        *s += k;
        return k > 0;
}

size_t escape_bytes_len(const char *s, EscapeKeep keep) {
        size_t len = 0;
        for (const char *c = s; *c;) {
                size_t k = keep(c, c == s);
                len += k ? k : 4;
                c += k ? k : 1;
        }
        return len;
}

char *escape_bytes(const char *s, EscapeKeep keep) {
        static const char hex[] = "0123456789abcdef";
        char *e = malloc(escape_bytes_len(s, keep) + 1), *p = e;

        if (!e)
                return NULL;
        for (const char *c = s; *c;) {
                if (copy_kept(&p, &c, c == s, keep))
                        continue;
                unsigned char b = (unsigned char) *c++;
                *p++ = '\\';
                *p++ = 'x';
                *p++ = hex[b >> 4];
                *p++ = hex[b & 15];
        }
        *p = '\0';
        return e;
}

static int hex_digit(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int unescape_bytes(const char *s, EscapeKeep keep, char **ret) {
        char *b = malloc(strlen(s) + 1), *p = b;

        if (!b)
                return -ENOMEM;
        for (const char *c = s; *c;) {
                if (copy_kept(&p, &c, c == s, keep))
                        continue;
                int hi = c[0] == '\\' && c[1] == 'x' ? hex_digit(c[2]) : -1;
                int lo = hi >= 0 ? hex_digit(c[3]) : -1;
                if (lo < 0) {
                        free(b);
                        return -EINVAL;
                }
                *p++ = (char) (hi << 4 | lo);
                c += 4;
        }
        *p = '\0';
        /* Canonical only: escaping the result must give s back, so that
         * one byte string has exactly one text ("\x61" is not "a"). */
        char *again = escape_bytes(b, keep);
        int r = !again ? -ENOMEM : strcmp(again, s) != 0 ? -EINVAL : 0;
        free(again);
        if (r < 0) {
                free(b);
                return r;
        }
        *ret = b;
        return 0;
}

/* What sd-bus takes, less the backslash. The D-Bus specification allows
 * the noncharacters now; sd-bus refuses them, and the reply with them. */
static size_t utf8_kept(const char *s, bool first) {
        uint32_t c;
        size_t n = *s == '\\' ? 0 : utf8_decode(s, &c);
        return n > 0 && !utf8_is_noncharacter(c) ? n : 0;
}

char *utf8_escape(const char *s) {
        return escape_bytes(s, utf8_kept);
}

int utf8_unescape(const char *s, char **ret) {
        return unescape_bytes(s, utf8_kept, ret);
}

/* The same, and a line stays one line. */
static size_t utf8_line_kept(const char *s, bool first) {
        return *s == '\n' || *s == '\r' ? 0 : utf8_kept(s, first);
}

char *utf8_escape_line(const char *s) {
        return escape_bytes(s, utf8_line_kept);
}
