/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>
#include <stddef.h>

#include "core/term-escape.h"
#include "core/utf8-escape.h"
#include "core/utf8.h"

/* The explicit directional formatting characters: U+202A..U+202E and
 * U+2066..U+2069 reorder what follows them on the line, so a name could
 * show the columns after it reversed or another name than its own. */
static bool is_bidi_control(const char *s) {
        const unsigned char *p = (const unsigned char *) s;
        if (p[0] != 0xe2)
                return false;
        return (p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) || (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9);
}

/* How many bytes at s a terminal may have as they are (0: escape one). */
static size_t kept(const char *s, bool first) {
        unsigned char c = (unsigned char) s[0], next = (unsigned char) s[1];
        if (c < 0x20 || c == 0x7f)
                return 0;
        if (c == 0xc2 && next >= 0x80 && next <= 0x9f)
                return 0; /* C1, U+0080..U+009F; its second byte then stands alone and is escaped too */
        if (is_bidi_control(s))
                return 0; /* and its other two bytes, alone, too */
        return utf8_sequence(s);
}

static size_t kept_lines(const char *s, bool first) {
        return *s == '\n' ? 1 : kept(s, first);
}

char *term_escape(const char *s) {
        return escape_bytes(s, kept);
}

char *term_escape_lines(const char *s) {
        return escape_bytes(s, kept_lines);
}
