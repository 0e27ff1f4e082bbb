/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading and writing the kernel's small text files (/proc, cgroupfs):
 * one read or one write(2) each, raw negative errno, no interpretation. */
#pragma once

#include <stddef.h>

/* Read up to size-1 bytes and NUL-terminate. */
int read_small_file(const char *path, char *buf, size_t size, size_t *ret_len);

/* The same from an open file. */
int read_small_fd(int fd, char *buf, size_t size, size_t *ret_len);

/* Write s with a single write(2), as kernel attribute files expect (a
 * short write is -EIO). The file must exist: no O_CREAT. */
int write_small_file(const char *path, const char *s);
