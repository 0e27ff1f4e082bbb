/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qos.d INI files (main files and drop-ins) into an AppRule, with inih. */
#pragma once

#include "config/app-rule.h"

/* Parse one file's text into app (a drop-in amends what earlier files set).
 * Every problem goes to diag with its line; a broken line or section is
 * skipped and the rest still loads. path must outlive app: origins point
 * at it. Fails only with -ENOMEM. */
int ini_load_buffer(AppRule *app, const char *path, const char *text, size_t len, DiagList *diag);

/* The same for a file on disk; an unreadable file is reported and skipped. */
int ini_load_file(AppRule *app, const char *path, DiagList *diag);
