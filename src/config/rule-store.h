/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the rules of one list point into: an arena for their strings and
 * arrays, and a table of the files their lines come from. A rule set of
 * tens of thousands of rules holds five or so origins a rule, from a few
 * hundred files, so an origin is stored as a file number and a line
 * (8 bytes) instead of a path pointer and a line (16). The store stays
 * where it was allocated: rules in moving arrays point to it. */
#pragma once

#include <stdint.h>

#include "config/arena.h"
#include "config/rules.h"

/* A line of a rule file. {0, 0}: none (what a zeroed setting has). */
typedef struct SourceLine {
        uint32_t file;          /* 1 + index in the store's files; 0: none */
        uint32_t line;          /* 0: the whole file */
} SourceLine;

typedef struct RuleStore {
        Arena *arena;
        const char **files;     /* borrowed: they must outlive the store (the layout's) */
        uint32_t n_files;
        uint32_t n_allocated;
} RuleStore;

RuleStore *rule_store_new(void);
RuleStore *rule_store_free(RuleStore *s);

/* The number for o's file: the last file's again when the pointer is the
 * same (files are read one after the other), a new one otherwise. A path
 * NULL gives none. -ENOMEM, -E2BIG. */
int rule_store_line(RuleStore *s, RuleOrigin o, SourceLine *ret);
RuleOrigin rule_store_origin(const RuleStore *s, SourceLine l);
