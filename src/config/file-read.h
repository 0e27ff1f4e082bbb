/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whole small files into memory, so every loader parses a buffer: the same
 * code path for real files, tests and the fuzzers. */
#pragma once

#include <stddef.h>

#include "config/file-open.h"
#include "config/rules.h"

/* Rule files are small; anything larger is a mistake, not a rule set. */
#define RULE_FILE_MAX (1024 * 1024)

/* NUL-terminated copy of the file; -EFBIG above max bytes, -EBADFD when
 * it is not a regular file (a FIFO, a device, a directory), which is never
 * read and whose open never waits. */
int read_text_file(const char *path, size_t max, char **ret, size_t *ret_len);
/* The same, opened through o (file-open.h). */
int read_text_file_via(const FileOpener *o, const char *path, size_t max, char **ret, size_t *ret_len);

/* read_text_file() for a rule file: 1 when read; 0 when it cannot be, which
 * is reported in diag (the file is skipped); -ENOMEM. */
int read_rule_file(const char *path, char **ret, size_t *ret_len, DiagList *diag);
/* What read_rule_file() says about error from read_text_file(): 0 when
 * reported in diag, -ENOMEM. */
int read_rule_file_report(const char *path, int error, DiagList *diag);
