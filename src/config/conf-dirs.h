/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which files make up the rule set, systemd-style: directories in
 * precedence order, a file masks same-named files in lower directories, an
 * empty file or a symlink to /dev/null masks without replacing, and
 * NAME.conf.d/ drop-ins from every directory extend NAME.conf in lexical
 * order of their file names. Only names and file types are looked at here;
 * no file is parsed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "config/arena.h"
#include "config/file-open.h"
#include "config/rules.h"

typedef enum UnitKind {
        UNIT_CONF,              /* a qos.d INI file */
        UNIT_JSON,              /* a schedqos app config */
} UnitKind;

/* The strings are in the layout's arena; the two arrays are the unit's. */
typedef struct ConfUnit {
        const char *name;       /* "firefox.conf", "apps.json" */
        UnitKind kind;
        const char *path;       /* the file in force; NULL when masked */
        const char *masked_by;  /* the empty file or /dev/null link that masks it */
        const char **dropins;   /* applied, in order */
        size_t n_dropins;
        const char **ignored;   /* not read: lower same-named files, masked drop-ins,
                                 * drop-ins of a masked or missing file */
        size_t n_ignored;
        unsigned level;         /* directory of path or masked_by */
        unsigned top_level;     /* the highest directory that holds any of it */
} ConfUnit;

typedef struct ConfLayout {
        ConfUnit *units;        /* sorted by name when built from directories */
        size_t n_units;
        Arena *strings;         /* created with the first unit */
} ConfLayout;

/* root + dir, with root NULL or "/" meaning none. */
int conf_dir_under_root(const char *root, const char *dir, char **ret);

/* Scan dirs (lowest precedence first). Unreadable directories and entries
 * are reported and skipped; missing directories are normal. Names that are
 * not rule files (not *.conf, *.json, NAME.conf.d/ or, in a drop-in
 * directory, *.conf) are skipped with one warning per directory; hidden
 * names silently. -ENOMEM only. */
int conf_layout_build(ConfLayout *ret, const char *const *dirs, size_t n_dirs, DiagList *diag);

/* A bound on what the directories from from_level up (a user's) may add:
 * at most max_files files (main files, drop-ins and masks alike), the
 * first in the layout's order (by file name, main files before their
 * drop-ins), so the same files load whatever order the directory lists
 * them in. The others are skipped, in memory that does not grow with
 * them, and reported once, at the first one left out, naming setting.
 * The directories below from_level (the system's, scanned again for a
 * user's scope) do not report the names they skip: the system's own scan
 * does. */
typedef struct ConfCap {
        unsigned from_level;
        size_t max_files;       /* SIZE_MAX: none */
        const char *setting;
} ConfCap;

/* conf_layout_build() within cap (NULL: none), every directory and file
 * looked at through o (NULL: open(2); file-open.h). With an opener, an
 * entry it cannot open counts as a file, to be reported when it is read. */
int conf_layout_build_capped(ConfLayout *ret, const char *const *dirs, size_t n_dirs, const ConfCap *cap,
                             const FileOpener *o, DiagList *diag);

/* Whether dirs hold more than limit entries in all (files, drop-in
 * directories, masks alike), reading no further than needed to tell: the
 * cheap check before a load that must stay small. Missing and unreadable
 * directories count as empty. */
bool conf_dirs_exceed(const char *const *dirs, size_t n_dirs, size_t limit);

/* One file on its own, no layering (`qosctl check FILE`). A name that is
 * neither .conf nor .json is reported and skipped. */
int conf_layout_add_file(ConfLayout *l, const char *path, DiagList *diag);

/* Keep only the units that directories at level and above touch: what a
 * user's directory changes on top of the system's. */
void conf_layout_keep_from(ConfLayout *l, unsigned level);

/* By name; only for layouts built from directories. */
const ConfUnit *conf_layout_find(const ConfLayout *l, const char *name);

void conf_layout_done(ConfLayout *l);
