/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Names (a process name, a path) as file names, reversibly: distinct names
 * always give distinct files, and the file name reads as the name where it
 * can. Like systemd-escape, a byte that cannot stay becomes \xNN; unlike
 * it, valid UTF-8 stays as it is, so 原神.exe stays 原神.exe. */
#pragma once

#include <stddef.h>

/* Escaped: '/', '\\', control characters (C0 and DEL), bytes that are not
 * part of valid UTF-8 (overlong forms and surrogates included), and a
 * leading '.' (no hidden files, no "." or ".."). The length of the result,
 * without the NUL. */
size_t file_name_escaped_len(const char *name);

/* The escaped name, or NULL when out of memory. */
char *file_name_escape(const char *name);

/* The inverse: 0, -EINVAL for text that file_name_escape() never makes
 * (a \ not followed by xNN with lowercase hex, a byte that should have been
 * escaped), -ENOMEM. */
int file_name_unescape(const char *s, char **ret);
