/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, nothing
 * above U+10FFFF. The one decoder for what goes on the bus, into a file
 * name and to a terminal. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length of the valid UTF-8 sequence at s (1..4) with its code point
 * in *ret, or 0 when the byte at s starts none. The NUL ends a sequence,
 * so a cut one is invalid. */
size_t utf8_decode(const char *s, uint32_t *ret);

/* The same without the code point. */
size_t utf8_sequence(const char *s);

/* U+FDD0..U+FDEF and the last two of every plane (U+FFFE, U+FFFF, ...):
 * valid UTF-8 that sd-bus refuses all the same. */
bool utf8_is_noncharacter(uint32_t c);

/* Whether all of s is valid UTF-8. */
bool utf8_is_valid(const char *s);
