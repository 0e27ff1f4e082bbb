/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* schedqos's app configs, read as they are, with json-c:
 *   { "NAME": { "qos": "QOS_...", "thread_qos": { "GLOB": "QOS_..." },
 *               "period": N, "version": "..." }, ... }
 * NAME (a glob on the command's basename) becomes Executable=NAME. */
#pragma once

#include "config/app-rule.h"

/* Append one AppRule per application in the file to apps. A file that is
 * not valid JSON is reported and skipped as a whole (JSON cannot be read in
 * part); a bad entry skips that entry. path and unit must outlive apps.
 * Fails only with -ENOMEM. */
int schedqos_json_load_buffer(AppRuleList *apps, const char *path, const char *unit, const char *text,
                              size_t len, DiagList *diag);
int schedqos_json_load_file(AppRuleList *apps, const char *path, const char *unit, DiagList *diag);
