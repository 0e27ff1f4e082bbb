/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/utf8.h"

size_t utf8_decode(const char *str, uint32_t *ret) {
        const unsigned char *s = (const unsigned char *) str;
        size_t n;
        uint32_t c;

        if (s[0] < 0x80) {
                *ret = s[0];
                return 1;
        }
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
        *ret = c;
        return n;
}

size_t utf8_sequence(const char *s) {
        uint32_t c;
        return utf8_decode(s, &c);
}

bool utf8_is_noncharacter(uint32_t c) {
        return (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe;
}

bool utf8_is_valid(const char *s) {
        for (size_t k; *s; s += k)
                if ((k = utf8_sequence(s)) == 0)
                        return false;
        return true;
}
