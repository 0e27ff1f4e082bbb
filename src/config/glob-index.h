/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Patterns by specificity: exact names in a hash table, globs in a list
 * ordered by their literal prefix. Built once, then only looked up, so that
 * a lookup costs a hash probe plus the globs, whatever the number of exact
 * names. Patterns are borrowed; they must outlive the index. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* fnmatch(3) syntax: '*', '?', '[...]', '\' escapes. */
bool glob_is_pattern(const char *s);
/* Characters before the first unescaped wildcard ("ui-*" -> 3); the whole
 * length for a plain name. The measure of "more specific" between globs. */
size_t glob_literal_prefix(const char *s);
/* Plain names compare equal; globs with fnmatch(3) without flags, so '*'
 * also matches '/'. */
bool glob_match(const char *pattern, bool is_glob, const char *s);

typedef struct GlobItem GlobItem;
typedef struct GlobSlot GlobSlot;

typedef struct GlobIndex {
        GlobItem *items;        /* every pattern, in insertion order */
        size_t n_items;
        GlobSlot *slots;        /* open addressing over the exact names */
        size_t n_slots;         /* a power of two; 0 before glob_index_build() */
        uint32_t *globs;        /* items that are globs, most specific first */
        size_t n_globs;
        /* Long glob lists only: positions in globs, grouped by the first
         * character (256: globs that start with a wildcard or escape),
         * each group still most specific first. */
        uint32_t *by_first;
        uint32_t *first_start;  /* 258 entries: group c is [first_start[c], first_start[c + 1]) */
} GlobIndex;

/* value and aux are the caller's (e.g. rule and pattern numbers). */
int glob_index_add(GlobIndex *gi, const char *pattern, uint32_t value, uint32_t aux);
/* Call once after the last add, before any lookup. */
int glob_index_build(GlobIndex *gi);
void glob_index_done(GlobIndex *gi);

/* Return <0 to fail, 0 to go on, >0 to stop. */
typedef int (*glob_index_cb)(uint32_t value, uint32_t aux, void *userdata);

/* Every pattern that matches name: exact ones first (insertion order), then
 * globs, longest literal prefix first, ties in insertion order. Returns the
 * callback's last non-zero value, or 0. */
int glob_index_lookup(const GlobIndex *gi, const char *name, glob_index_cb cb, void *userdata);
