/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Logging to stderr; with "<N>" priority prefixes when stderr is the journal. */
#pragma once

#include <syslog.h>
#include "core/macro.h"

void log_set_max_level(int level);
int log_get_max_level(void);
/* Parse "err", "warning", "info", "debug" (or a number 0-7). */
int log_level_from_string(const char *s);

/* Returns -abs(error) so callers can `return log_error_errno(r, ...)`. */
int log_internal(int level, int error, const char *fmt, ...) _printf_(3, 4);

#define log_full_errno(level, error, ...) log_internal(level, error, __VA_ARGS__)
#define log_debug(...) log_internal(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_internal(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_internal(LOG_DEBUG, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_internal(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...) log_internal(LOG_ERR, e, __VA_ARGS__)
