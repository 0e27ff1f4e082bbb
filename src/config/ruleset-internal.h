/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The loaded rule set, shared by the loader (ruleset.c), the matcher
 * (rule-match.c) and the printer (rule-dump.c). Read-only once loaded. */
#pragma once

#include "config/app-rule.h"
#include "config/conf-dirs.h"

/* The system's rules, or one user's: a user's scope holds only the files
 * that user's directories change, merged with what they change. */
typedef struct Scope {
        bool user;
        uid_t uid;
        unsigned user_level;    /* user scopes: layout level of the first user directory */
        ConfLayout layout;
        AppRuleList apps;       /* in layout order */
        GlobIndex by_path;      /* Executable= with a '/' */
        GlobIndex by_name;      /* Executable= basenames, and file names of files without [Match] */
        uint32_t *unindexed;    /* applications matched by CommandLine=/Cgroup= only */
        size_t n_unindexed;
        bool app_ids;           /* some rule matches by AppId= */
        size_t n_rules;
        /* User scopes: what they may load, what they read so far, and the
         * limit that stopped the load (NULL: none). */
        const UserLimits *limits;
        size_t n_bytes;
        const char *limit_hit;
} Scope;

struct RuleSet {
        Scope *scopes;          /* [0]: the system directories */
        size_t n_scopes;
        char **dirs;            /* the system directories, lowest first */
        size_t n_dirs;
        bool standard_dirs;     /* dirs are vendor, admin, runtime */
        size_t n_rules;
        size_t n_files;
};

/* Pattern number for an application matched by its file name. */
#define PATTERN_IMPLICIT UINT32_MAX
