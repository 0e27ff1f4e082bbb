/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Throw-away directory trees for the config tests, and assertions on the
 * diagnostics a load produced. */
#pragma once

#include "config/rules.h"

/* mkdtemp below $TMPDIR; the caller frees and removes it. */
char *tree_new(void);
void tree_remove(char *root);

/* Write root/rel, creating the directories on the way. */
void tree_write(const char *root, const char *rel, const char *content);
void tree_symlink(const char *root, const char *rel, const char *target);
void tree_mkdir(const char *root, const char *rel);
/* root/rel, malloc'd. */
char *tree_path(const char *root, const char *rel);

/* The one diagnostic at line whose message contains text (fails the test
 * when there is none); level is checked too. */
const Diag *expect_diag(const DiagList *l, unsigned line, int level, const char *text);
/* Fails if any diagnostic contains text. */
void expect_no_diag(const DiagList *l, const char *text);
/* Print them, to see what a failing test saw. */
void dump_diags(const DiagList *l);
