/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Byte strings as text: a byte that cannot stay as it is becomes \xNN
 * (two lowercase hex digits), as systemd-escape writes it. One walker for
 * each caller's idea of what may stay: D-Bus's (valid UTF-8, below),
 * file names' (file-name.h), a terminal's (qosctl). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* How many bytes at s stay as they are; 0: the byte at s is escaped.
 * first: s is where the string starts. Never asked at the NUL. */
typedef size_t (*EscapeKeep)(const char *s, bool first);

/* The length of the escaped s, without the NUL. */
size_t escape_bytes_len(const char *s, EscapeKeep keep);

/* The escaped s, or NULL when out of memory. */
char *escape_bytes(const char *s, EscapeKeep keep);

/* The inverse, for a keep that escapes the backslash (otherwise a "\x41"
 * in the input and an escaped 'A' would read the same): 0, -EINVAL for
 * text escape_bytes() never makes with keep (a \ not followed by xNN in
 * lowercase hex, a byte that should have been escaped, an escape of a
 * byte that stays), -ENOMEM. */
int unescape_bytes(const char *s, EscapeKeep keep, char **ret);

/* Any bytes as a string sd-bus takes: bytes that are not part of valid
 * UTF-8 become \xNN, and so do the bytes of a noncharacter (U+FFFF, which
 * sd-bus refuses although it is UTF-8) and the backslash, so that the text
 * reads back to the very bytes (utf8_unescape). The rest, control
 * characters included, stays: showing text safely is the reader's part.
 * NULL when out of memory. */
char *utf8_escape(const char *s);
int utf8_unescape(const char *s, char **ret);

/* utf8_escape(), and newlines and carriage returns become \x0a and \x0d:
 * for a name in a message of one line per item, which it must not split
 * (a file named "x\nforged: ..." would add a line of its own). */
char *utf8_escape_line(const char *s);
