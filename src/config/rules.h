/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-application rules: loaded from the layered config directories (pure:
 * text in, rules out) and evaluated by the matcher. Used by qosd, qosctl and
 * the preload library alike; no kernel or daemon knowledge here. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "qclass.h"

/* Where a rule (or a diagnostic) comes from. */
typedef struct RuleOrigin {
        const char *path;       /* owned by the RuleSet */
        unsigned line;
} RuleOrigin;

/* A process as the matcher sees it. Any string may be NULL when unknown. */
typedef struct ProcessInfo {
        const char *exe;        /* /proc/PID/exe target */
        const char *cmdline;    /* argv joined by single spaces */
        const char *arg0;       /* basename of argv[0] */
        const char *comm;       /* the main thread's name */
        const char *cgroup;     /* cgroup path of the process */
        uid_t uid;
} ProcessInfo;

typedef struct MatchResult {
        QClass class;           /* QCLASS_UNSPECIFIED: no rule says anything */
        QClass max_class;       /* [Limits] MaxClass in force; UNSPECIFIED: no cap */
        const char *app;        /* name of the deciding application file */
        RuleOrigin origin;      /* the Class= line that decided */
        bool thread_rule;       /* decided by a [Thread:GLOB] section */
        bool user_rule;         /* came from the process owner's own directory */
} MatchResult;

/* One error or warning found while loading. */
typedef struct Diag {
        char *path;
        unsigned line;          /* 0: about the whole file */
        int level;              /* LOG_ERR or LOG_WARNING */
        char *message;
} Diag;

typedef struct DiagList {
        Diag *items;
        size_t n;
} DiagList;

void diag_list_clear(DiagList *l);
size_t diag_list_count(const DiagList *l, int level);

/* Where to load from. root prefixes the system directories like
 * `systemctl --root` (NULL or "/" for the real ones); the user directories
 * apply only to processes of their uid. */
typedef struct UserRuleDir {
        uid_t uid;
        const char *dir;
} UserRuleDir;

typedef struct RuleSources {
        const char *root;
        const UserRuleDir *user_dirs;
        size_t n_user_dirs;
} RuleSources;

typedef struct RuleSet RuleSet;

/* Load everything. Broken files and lines are reported in diag (file:line)
 * and skipped; the rest loads. Fails only on out-of-memory. */
int ruleset_load(const RuleSources *src, RuleSet **ret, DiagList *diag);
RuleSet *ruleset_free(RuleSet *rs);
size_t ruleset_size(const RuleSet *rs);

/* The class for one thread of a process (thread_name = its comm; NULL for
 * the process as a whole). Returns 1 if a rule matched, 0 if none. */
int ruleset_match(const RuleSet *rs, const ProcessInfo *proc, const char *thread_name,
                  MatchResult *ret);
