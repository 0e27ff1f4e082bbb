/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-application rules: loaded from the layered config directories (pure:
 * text in, rules out) and evaluated by the matcher. Used by qosd, qosctl and
 * the preload library alike; no kernel or daemon knowledge here. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/macro.h"
#include "core/qclass.h"

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
        const char *app_id;     /* from its unit's name or its Flatpak instance (units/app-id.h) */
        uid_t uid;
        bool exe_elsewhere;     /* exe may name another file where the rules were
                                 * written (proc_exe_path_is_ours()): full-path
                                 * Executable= patterns do not match it */
} ProcessInfo;

typedef struct MatchResult {
        QClass class;           /* QCLASS_UNSPECIFIED: no rule says anything;
                                 * already capped by max_class */
        QClass max_class;       /* [Limits] MaxClass in force; UNSPECIFIED: no cap */
        const char *app;        /* name of the deciding application: the file name
                                 * without ".conf", or the key of a schedqos file */
        RuleOrigin origin;      /* the Class= line that decided */
        bool thread_rule;       /* decided by a [Thread:GLOB] section */
        bool user_rule;         /* came from the process owner's own directory */
        QClass requested;       /* what the Class= line asked for, before the cap */
        RuleOrigin limit_origin; /* the MaxClass= line in force (path NULL: none) */
        bool limit_user;        /* ... came from the process owner's own directory */
        bool interactive_exempt; /* AllowInteractiveInBackground=yes in the admin directory */
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
        size_t max;             /* keep at most this many (0: no limit) ... */
        size_t n_dropped;       /* ... and count the others */
} DiagList;

void diag_list_clear(DiagList *l);
size_t diag_list_count(const DiagList *l, int level);
/* Append one entry (path is copied; line 0: the whole file); beyond
 * l->max only counted. -ENOMEM only. */
int diag_add(DiagList *l, int level, const char *path, unsigned line, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
/* Move the entries of from that into does not hold yet to into (from's
 * remaining entries stay for diag_list_clear()). -ENOMEM. */
int diag_list_merge_new(DiagList *into, DiagList *from);
/* By file and line, for reading; -ENOMEM. */
int diag_list_sort(DiagList *l);
/* "path:line: error: message", one a line. */
void diag_format(const Diag *d, FILE *f);
void diag_list_print(const DiagList *l, FILE *f);

/* The application directory below each of QOS_VENDOR_DIR, QOS_ADMIN_DIR,
 * QOS_RUNTIME_DIR, and below a user's $XDG_CONFIG_HOME (~/.config/qos). */
#define QOS_APPS_SUBDIR "apps.d"

/* Where to load from. root prefixes the system directories like
 * `systemctl --root` (NULL or "/" for the real ones); the user directories
 * apply only to processes of their uid (several for one uid layer in
 * array order, later ones higher). dirs, when given, replace the three
 * system directories (lowest precedence first; root is not applied to
 * them); files are loaded each on its own, without layering (for
 * `qosctl check FILE`). */
typedef struct UserRuleDir {
        uid_t uid;
        const char *dir;
} UserRuleDir;

typedef struct UserLimits {
        size_t max_files, max_rules, max_bytes;
} UserLimits;

typedef struct RuleSources {
        const char *root;
        const UserRuleDir *user_dirs;
        size_t n_user_dirs;
        const char *const *dirs;
        size_t n_dirs;
        const char *const *files;
        size_t n_files;
        /* Called around reading one user's directories, so that a loader
         * running as root can take that user's file-system identity and
         * never read what the user could not (a symlink to a root-only
         * file). A negative return skips that user's rules, with a warning. */
        int (*enter_user)(uid_t uid, void *userdata);
        void (*leave_user)(uid_t uid, void *userdata);
        /* Called, between the two, to open every directory and file of
         * uid's scope (the system's it reads again too): an fd for path
         * opened with flags, or a negative errno, -EXDEV meaning "refused:
         * leads out of the user's home" (see file-open.h). NULL: open(2). */
        int (*open_user)(uid_t uid, const char *path, int flags, void *userdata);
        void *userdata;
        /* More entries than this in the system directories, and the load
         * stops with -E2BIG before it lists or parses them: for a caller
         * that loads in every process it enters (the preload). 0: none. */
        size_t max_entries;
        /* What one user's directories may load (0: no limit): files (main
         * files, drop-ins and masks in the user's directories), rules (as
         * ruleset_size() counts them, merged copies of system files
         * included), and bytes of text read for that user. Files load in
         * name order until a limit is reached; that file and all after it
         * are skipped, reported once as an error at that file. The system
         * directories have no such limits. */
        UserLimits user_limits;
} RuleSources;

typedef struct RuleSet RuleSet;

/* Load everything. Broken files and lines are reported in diag (file:line)
 * and skipped; the rest loads. Fails only on out-of-memory, or with -E2BIG
 * beyond src->max_entries. */
int ruleset_load(const RuleSources *src, RuleSet **ret, DiagList *diag);
RuleSet *ruleset_free(RuleSet *rs);
DEFINE_TRIVIAL_CLEANUP_FUNC(RuleSet *, ruleset_free)
/* Load uid's rules again from src (only its user directories are read;
 * the system scope stays as loaded) and put them in place of the ones rs
 * holds: a change in one user's directory costs that user's files only.
 * -ENOMEM leaves the user's old rules in place, or none. */
int ruleset_reload_user(RuleSet *rs, const RuleSources *src, uid_t uid, DiagList *diag);
/* Rules loaded: one for each application, one for each [Thread:] section
 * (a user's merged copy of a system file counts again: it is matched on
 * its own). */
size_t ruleset_size(const RuleSet *rs);
/* Rules loaded for uid's own scope (0: none). */
size_t ruleset_user_size(const RuleSet *rs, uid_t uid);
/* Distinct files read (main files, drop-ins, schedqos files; masks not
 * counted). */
size_t ruleset_n_files(const RuleSet *rs);

/* Whether any rule matches by AppId=: only then is a process's Flatpak
 * instance read for its ID (a unit's name costs nothing to read). */
bool ruleset_uses_app_ids(const RuleSet *rs);

/* The class for one thread of a process (thread_name = its comm; NULL for
 * the process as a whole). Returns 1 if an application's rules matched, 0
 * if none (ret is then all UNSPECIFIED). With 1, ret->class may still be
 * UNSPECIFIED when the application only sets a limit or only names other
 * threads, or when the owner's own files mask the system's rule but its
 * MaxClass still holds. Precedence is described in qos.d(5). */
int ruleset_match(const RuleSet *rs, const ProcessInfo *proc, const char *thread_name,
                  MatchResult *ret);

/* The merged result as qos.d text, like `systemctl cat`: per file which
 * file won, what it masks, the drop-ins applied, then the rules with the
 * file:line each setting comes from. For `qosctl check --effective`. */
void ruleset_write_effective(const RuleSet *rs, FILE *f);
