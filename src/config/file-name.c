/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>

#include "config/file-name.h"
#include "core/utf8-escape.h"
#include "core/utf8.h"

/* How many bytes at s stay as they are (0: the byte at s is escaped). */
static size_t kept(const char *s, bool first) {
        unsigned char c = (unsigned char) *s;
        if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || (first && c == '.'))
                return 0;
        return utf8_sequence(s);
}

size_t file_name_escaped_len(const char *name) {
        return escape_bytes_len(name, kept);
}

char *file_name_escape(const char *name) {
        return escape_bytes(name, kept);
}

int file_name_unescape(const char *s, char **ret) {
        return unescape_bytes(s, kept, ret);
}
