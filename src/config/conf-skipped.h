/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names a directory's scan passes over (not hidden, not a rule
 * file's), for one message per directory however many there are: their
 * number, the first few by name (the same whatever order the directory
 * lists them in) and whether one is ananicy's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "config/rules.h"

#define SKIPPED_SHOWN 3

typedef struct Skipped {
        size_t n;
        char *first[SKIPPED_SHOWN];     /* sorted */
        bool ananicy;
} Skipped;

void skipped_done(Skipped *k);
int skipped_add(Skipped *k, const char *name);

/* One warning for what k holds (then emptied), at the file when it is
 * one, else at dir: what is not a rule file there is read by nobody, and
 * was most often meant to be. dropins: dir is a NAME.conf.d/. */
int skipped_report(Skipped *k, const char *dir, bool dropins, DiagList *diag);
