/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, nothing
 * above U+10FFFF. It is what D-Bus accepts in a string and what a terminal
 * reads as text; the one decoder for both. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The length of the valid UTF-8 sequence at s (1..4), or 0 when the byte
 * at s starts none. The NUL ends a sequence, so a cut one is invalid. */
size_t utf8_sequence(const char *s);

/* Whether all of s is valid UTF-8. */
bool utf8_is_valid(const char *s);
