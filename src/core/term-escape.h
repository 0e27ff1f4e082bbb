/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What qosctl prints and did not write itself (thread names, paths,
 * qosd's messages), and qosd's log, reach a terminal only as text: control characters
 * and bytes that are not UTF-8 become \xNN, so a thread named
 * "\e]0;PWNED\a" shows as \x1b]0;PWNED\x07 and sets no window title. */
#pragma once

/* Escaped: C0 controls, DEL, the C1 controls U+0080..U+009F (a terminal
 * may take U+009B as the start of an escape sequence), the directional
 * overrides and isolates (U+202A..U+202E, U+2066..U+2069) and bytes that
 * are not part of valid UTF-8. A backslash stays: qosd sends its own as \x5c
 * (utf8-escape.h), so what it escaped reads the same here. NULL when out
 * of memory. */
char *term_escape(const char *s);

/* The same for a message of several lines: the newlines stay. */
char *term_escape_lines(const char *s);
