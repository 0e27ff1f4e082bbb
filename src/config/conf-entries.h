/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The files a directory scan finds (conf-dirs.c), before layering decides
 * their fate; internal to the loader. Entries of capped directories are
 * kept in bounded memory, however many the directories hold. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "config/conf-dirs.h"

/* One file seen while scanning, before layering decides its fate. */
typedef struct Entry {
        char *unit;             /* "foo.conf" */
        char *dropin;           /* "10-x.conf" for foo.conf.d/10-x.conf; NULL: the main file */
        char *path;
        unsigned level;
        bool mask;
        bool mask_unknown;      /* a plain file not yet looked at: see resolve_mask() */
        UnitKind kind;
} Entry;

typedef struct EntryList {
        Entry *items;
        size_t n;
        /* The capped directories' entries: a max-heap by cmp_entry() of at
         * most cap->max_files, so that the ones kept are the first in the
         * layout's order whatever the directory holds, in bounded memory. */
        const ConfCap *cap;
        Entry *heap;
        size_t n_heap;
        size_t n_skipped;
        Entry first_skipped;    /* the lowest one left out; path NULL: none */
        bool dirs;              /* drop-in directories, not files (for the report) */
} EntryList;

/* "a/b"; -ENOMEM. */
int conf_path_join(const char *a, const char *b, char **ret);

/* Unit, then its main files before its drop-ins, drop-ins by name, and
 * within one name the highest directory first: the one that wins. */
int cmp_entry(const void *a, const void *b);

/* Append one entry (strings copied). mask: 1 or 0, or -1 when not known
 * yet. An entry of a capped directory (l->cap) goes to the bounded heap
 * instead, or is counted as skipped. -ENOMEM. */
int entry_add(EntryList *l, const char *unit, const char *dropin, const char *dir, const char *name,
              unsigned level, int mask, UnitKind kind);
/* After the scan: the capped entries join the others, and the ones left
 * out are reported once. -ENOMEM. */
int entry_list_take_capped(EntryList *l, DiagList *diag);
void entry_done(Entry *e);
void entry_list_done(EntryList *l);
