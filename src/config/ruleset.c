/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading: which files (conf-dirs.c), their text (ini-load.c,
 * schedqos-json.c), then the indexes the matcher uses. */
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config/file-read.h"
#include "config/ini-load.h"
#include "core/macro.h"
#include "qos-config.h"
#include "config/ruleset-internal.h"
#include "config/schedqos-json.h"

/* Messages kept about one user's files per load: a file of bad lines must
 * not fill the daemon's memory and journal. */
#define USER_DIAG_MAX 64

/* The admin directory, the only one whose files may exempt an application
 * from the foreground gate: vendors and users could otherwise give every
 * program user-interactive while the user looks elsewhere. NULL when the
 * directories are not the standard three (qosctl check FILE...). */
static const char *admin_dir(const RuleSet *rs) {
        return rs->standard_dirs && rs->n_dirs > 1 ? rs->dirs[1] : NULL;
}

static int check_exempt(const RuleSet *rs, AppRule *app, DiagList *diag) {
        const char *admin = admin_dir(rs);
        size_t n = admin ? strlen(admin) : 0, n_exe, n_app;
        AppRuleExtra *extra = app->extra;
        if (!app_rule_interactive_exempt(app))
                return 0;
        RuleOrigin o = app_rule_origin(app, extra->exempt_origin);
        /* An app ID is what the app's launcher says, and its user may say
         * any: it picks a class, never a pass through the gate. */
        (void) app_rule_patterns(app, MATCH_EXECUTABLE, &n_exe);
        (void) app_rule_patterns(app, MATCH_APP_ID, &n_app);
        if (n_app > 0 && n_exe == 0) {
                extra->interactive_exempt = false;
                return diag_add(diag, LOG_WARNING, o.path ?: "?", o.line,
                                "AllowInteractiveInBackground= needs Executable= beside AppId= (an app ID is "
                                "the launcher's word); ignored");
        }
        if (!admin)
                return 0; /* files or directories named by hand: only qosd's load judges */
        if (o.path && strncmp(o.path, admin, n) == 0 && o.path[n] == '/') /* its files and drop-ins */
                return 0;
        extra->interactive_exempt = false;
        return diag_add(diag, LOG_WARNING, o.path ?: "?", o.line,
                        "AllowInteractiveInBackground= is honoured only in %s; ignored", admin);
}

/* One file's text, opened through o (a user scope's: file-open.h). A user
 * scope's files count against its byte limit; the file that would pass it
 * is not read and stops the scope's load. 1 when read; 0 when not
 * (reported, or the limit: s->limit_hit); -ENOMEM. */
static int read_scope_file(const FileOpener *o, Scope *s, const char *path, char **text, size_t *len,
                           DiagList *diag) {
        size_t max = RULE_FILE_MAX, limit = s->limits ? s->limits->max_bytes : 0;
        size_t left = limit > s->n_bytes ? limit - s->n_bytes : 0;
        if (limit > 0 && left < max)
                max = left;
        int r = read_text_file_via(o, path, max, text, len);
        if (r == -EFBIG && max < RULE_FILE_MAX) {
                s->limit_hit = "UserRulesMaxBytes";
                return 0;
        }
        if (r < 0)
                return read_rule_file_report(path, r, diag);
        s->n_bytes += *len;
        return 1;
}

static int load_ini(const FileOpener *o, Scope *s, AppRule *app, const char *path, DiagList *diag) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = read_scope_file(o, s, path, &text, &len, diag);
        if (r <= 0)
                return r;
        return ini_load_buffer(app, path, text, len, diag);
}

static int load_json(const FileOpener *o, Scope *s, const ConfUnit *u, DiagList *diag) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = read_scope_file(o, s, u->path, &text, &len, diag);
        if (r <= 0)
                return r;
        return schedqos_json_load_buffer(&s->apps, u->path, u->name, text, len, diag);
}

/* Load one unit into s. A unit that would take a user scope past a limit
 * leaves nothing behind and sets s->limit_hit. */
static int load_unit(const FileOpener *o, RuleSet *rs, Scope *s, const ConfUnit *u, DiagList *diag) {
        size_t first = s->apps.n, n_rules = 0;
        int r;

        if (!u->path)
                return 0; /* masked, or drop-ins without their file */

        if (u->kind == UNIT_JSON) {
                r = load_json(o, s, u, diag);
        } else {
                _cleanup_free_ char *name = strndup(u->name, strlen(u->name) - strlen(".conf"));
                AppRule *app;
                if (!name)
                        return -ENOMEM;
                r = app_rule_list_push(&s->apps, name, u->name, (RuleOrigin) { u->path, 0 }, &app);
                if (r < 0)
                        return r;
                r = load_ini(o, s, app, u->path, diag);
                for (size_t i = 0; i < u->n_dropins && r >= 0 && !s->limit_hit; i++)
                        r = load_ini(o, s, app, u->dropins[i], diag);
        }
        if (r < 0)
                return r;

        for (size_t i = first; i < s->apps.n && !s->limit_hit; i++) {
                AppRule *app = &s->apps.items[i];
                app->level = u->top_level;
                r = check_exempt(rs, app, diag);
                if (r < 0)
                        return r;
                r = app_rule_finalize(app, diag);
                if (r < 0)
                        return r;
                n_rules += 1 + app_rule_n_thread_rules(app);
        }
        if (!s->limit_hit && s->limits && s->limits->max_rules > 0 &&
            s->n_rules + n_rules > s->limits->max_rules)
                s->limit_hit = "UserRulesMaxRules";
        if (s->limit_hit) {
                while (s->apps.n > first)
                        app_rule_list_pop(&s->apps);
                return 0;
        }
        s->n_rules += n_rules;
        rs->n_rules += n_rules;
        return 0;
}

static int index_app(Scope *s, const AppRule *app, uint32_t i) {
        size_t n_exe, n_app;
        const Pattern *exe = app_rule_patterns(app, MATCH_EXECUTABLE, &n_exe);
        int r;

        (void) app_rule_patterns(app, MATCH_APP_ID, &n_app);
        s->app_ids |= n_app > 0;
        if (app->implicit_match)
                return glob_index_add(&s->by_name, app->name, i, PATTERN_IMPLICIT);
        if (n_exe == 0) {
                uint32_t *u = reallocarray(s->unindexed, s->n_unindexed + 1, sizeof *u);
                if (!u)
                        return -ENOMEM;
                s->unindexed = u;
                u[s->n_unindexed++] = i;
                return 0;
        }
        for (size_t j = 0; j < n_exe; j++) {
                const Pattern *p = &exe[j];
                r = glob_index_add(p->path ? &s->by_path : &s->by_name, p->text, i, (uint32_t) j);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The file a report about a user's unit names: one of the user's own,
 * so that it never counts as an error in the system directories. */
static const char *unit_user_file(const RuleSet *rs, const ConfUnit *u) {
        if (u->level >= rs->n_dirs)
                return u->path;
        for (size_t i = 0; i < u->n_dropins; i++) {
                bool system = false;
                for (size_t d = 0; d < rs->n_dirs && !system; d++) {
                        size_t n = strlen(rs->dirs[d]);
                        system = strncmp(u->dropins[i], rs->dirs[d], n) == 0 && u->dropins[i][n] == '/';
                }
                if (!system)
                        return u->dropins[i];
        }
        return u->path;
}

static int scope_load(const FileOpener *o, RuleSet *rs, Scope *s, DiagList *diag) {
        int r;

        for (size_t i = 0; i < s->layout.n_units; i++) {
                const ConfUnit *u = &s->layout.units[i];
                r = load_unit(o, rs, s, u, diag);
                if (r < 0)
                        return r;
                if (!s->limit_hit)
                        continue;
                size_t limit = strcmp(s->limit_hit, "UserRulesMaxBytes") == 0 ? s->limits->max_bytes
                                                                                : s->limits->max_rules;
                r = diag_add(diag, LOG_ERR, unit_user_file(rs, u), 0,
                             "beyond this user's limit of %zu %s (%s=); this file and %zu after it in name order skipped",
                             limit, strcmp(s->limit_hit, "UserRulesMaxBytes") == 0 ? "bytes" : "rules",
                             s->limit_hit, s->layout.n_units - i - 1);
                if (r < 0)
                        return r;
                break;
        }
        for (size_t i = 0; i < s->apps.n; i++) {
                r = index_app(s, &s->apps.items[i], (uint32_t) i);
                if (r < 0)
                        return r;
        }
        r = glob_index_build(&s->by_path);
        if (r < 0)
                return r;
        return glob_index_build(&s->by_name);
}

static void scope_done(Scope *s) {
        app_rule_list_done(&s->apps);
        glob_index_done(&s->by_path);
        glob_index_done(&s->by_name);
        free(s->unindexed);
        conf_layout_done(&s->layout);
}

static int push_scope(RuleSet *rs, Scope **ret) {
        Scope *s = reallocarray(rs->scopes, rs->n_scopes + 1, sizeof *s);
        if (!s)
                return -ENOMEM;
        rs->scopes = s;
        s = &s[rs->n_scopes++];
        *s = (Scope) {};
        *ret = s;
        return 0;
}

static int system_dirs(RuleSet *rs, const RuleSources *src) {
        static const char *const defaults[] = { QOS_VENDOR_DIR, QOS_ADMIN_DIR, QOS_RUNTIME_DIR };
        size_t n = src->dirs ? src->n_dirs : (src->files ? 0 : ELEMENTSOF(defaults));

        rs->standard_dirs = !src->dirs && !src->files;
        rs->dirs = calloc(n ? n : 1, sizeof *rs->dirs);
        if (!rs->dirs)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int r;
                if (src->dirs)
                        r = (rs->dirs[i] = strdup(src->dirs[i])) ? 0 : -ENOMEM;
                else {
                        _cleanup_free_ char *d = NULL;
                        r = asprintf(&d, "%s/%s", defaults[i], QOS_APPS_SUBDIR) < 0 ? -ENOMEM : 0;
                        if (r >= 0)
                                r = conf_dir_under_root(src->root, d, &rs->dirs[i]);
                }
                if (r < 0)
                        return r;
                rs->n_dirs++;
        }
        return 0;
}

/* src->open_user for one uid, as a FileOpener. */
typedef struct UserOpener {
        const RuleSources *src;
        uid_t uid;
} UserOpener;

static int open_as_user(const char *path, int flags, void *userdata) {
        const UserOpener *u = userdata;
        return u->src->open_user(u->uid, path, flags, u->src->userdata);
}

/* One scope per uid, its directories layered on the system ones in the
 * order given, every file opened through src->open_user if there is one. */
static int load_user_scope(RuleSet *rs, const RuleSources *src, uid_t uid, DiagList *diag) {
        _cleanup_free_ const char **dirs = calloc(rs->n_dirs + src->n_user_dirs, sizeof *dirs);
        size_t n = rs->n_dirs;
        Scope *s;
        int r;

        if (!dirs)
                return -ENOMEM;
        for (size_t i = 0; i < rs->n_dirs; i++)
                dirs[i] = rs->dirs[i];
        for (size_t i = 0; i < src->n_user_dirs; i++)
                if (src->user_dirs[i].uid == uid)
                        dirs[n++] = src->user_dirs[i].dir;

        r = push_scope(rs, &s);
        if (r < 0)
                return r;
        s->user = true;
        s->uid = uid;
        s->user_level = (unsigned) rs->n_dirs;
        s->limits = &src->user_limits;

        /* The system files a user's drop-ins extend are read again here;
         * what they said the first time is not said twice. A user's files
         * say at most USER_DIAG_MAX things, however many bad lines. */
        DiagList mine = { .max = USER_DIAG_MAX };
        ConfCap cap = {
                .from_level = s->user_level,
                .max_files = src->user_limits.max_files ?: SIZE_MAX,
                .setting = "UserRulesMaxFiles",
        };
        UserOpener uo = { .src = src, .uid = uid };
        const FileOpener opener = { .open = open_as_user, .userdata = &uo };
        const FileOpener *o = src->open_user ? &opener : NULL;
        r = conf_layout_build_capped(&s->layout, dirs, n, &cap, o, &mine);
        if (r >= 0) {
                conf_layout_keep_from(&s->layout, s->user_level);
                r = scope_load(o, rs, s, &mine);
        }
        if (r >= 0 && mine.n_dropped > 0)
                r = diag_add(diag, LOG_WARNING, dirs[n - 1], 0, "%zu more messages about uid %u's rules not shown",
                             mine.n_dropped, (unsigned) uid);
        if (r >= 0)
                r = diag_list_merge_new(diag, &mine);
        diag_list_clear(&mine);
        return r;
}

/* uid's scope, appended to rs, read with the user's identity. A user
 * whose identity cannot be taken is reported and has no scope. */
static int load_user(RuleSet *rs, const RuleSources *src, uid_t uid, DiagList *diag) {
        const char *dir = NULL;
        int r;

        for (size_t i = 0; i < src->n_user_dirs && !dir; i++)
                if (src->user_dirs[i].uid == uid)
                        dir = src->user_dirs[i].dir;
        if (!dir)
                return 0;
        if (src->enter_user) {
                r = src->enter_user(uid, src->userdata);
                if (r < 0) {
                        r = diag_add(diag, LOG_WARNING, dir, 0, "rules of uid %u skipped: %s", (unsigned) uid,
                                     strerror(-r));
                        return r < 0 ? r : 0;
                }
        }
        r = load_user_scope(rs, src, uid, diag);
        if (src->leave_user)
                src->leave_user(uid, src->userdata);
        return r;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Files read, each once: a user's scope reads system files again. */
static int count_files(RuleSet *rs) {
        size_t n = 0;
        rs->n_files = 0;
        for (size_t i = 0; i < rs->n_scopes; i++)
                for (size_t j = 0; j < rs->scopes[i].layout.n_units; j++) {
                        const ConfUnit *u = &rs->scopes[i].layout.units[j];
                        n += u->path ? 1 + u->n_dropins : 0;
                }
        if (n == 0)
                return 0;
        _cleanup_free_ const char **paths = calloc(n, sizeof *paths);
        if (!paths)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < rs->n_scopes; i++)
                for (size_t j = 0; j < rs->scopes[i].layout.n_units; j++) {
                        const ConfUnit *u = &rs->scopes[i].layout.units[j];
                        if (!u->path)
                                continue;
                        paths[k++] = u->path;
                        for (size_t d = 0; d < u->n_dropins; d++)
                                paths[k++] = u->dropins[d];
                }
        qsort(paths, n, sizeof *paths, cmp_str);
        for (size_t i = 0; i < n; i++)
                rs->n_files += i == 0 || strcmp(paths[i], paths[i - 1]) != 0;
        return 0;
}

static int ruleset_load_all(RuleSet *rs, const RuleSources *src, DiagList *diag) {
        Scope *sys;
        int r;

        r = system_dirs(rs, src);
        if (r < 0)
                return r;
        r = push_scope(rs, &sys);
        if (r < 0)
                return r;
        /* Counting stops at the limit: far cheaper than the layout, which
         * stats every file that wins. */
        if (src->max_entries > 0 &&
            conf_dirs_exceed((const char *const *) rs->dirs, rs->n_dirs, src->max_entries))
                return -E2BIG;
        r = conf_layout_build(&sys->layout, (const char *const *) rs->dirs, rs->n_dirs, diag);
        for (size_t i = 0; i < src->n_files && r >= 0; i++)
                r = conf_layout_add_file(&sys->layout, src->files[i], diag);
        if (r < 0)
                return r;
        r = scope_load(NULL, rs, sys, diag);
        if (r < 0)
                return r;

        for (size_t i = 0; i < src->n_user_dirs; i++) {
                bool seen = false;
                for (size_t j = 0; j < i; j++)
                        seen |= src->user_dirs[j].uid == src->user_dirs[i].uid;
                if (!seen && (r = load_user(rs, src, src->user_dirs[i].uid, diag)) < 0)
                        return r;
        }
        return count_files(rs);
}

int ruleset_load(const RuleSources *src, RuleSet **ret, DiagList *diag) {
        static const RuleSources none = {};
        RuleSet *rs = calloc(1, sizeof *rs);
        if (!rs)
                return -ENOMEM;
        int r = ruleset_load_all(rs, src ? src : &none, diag);
        if (r < 0) {
                ruleset_free(rs);
                return r;
        }
        *ret = rs;
        return 0;
}

int ruleset_reload_user(RuleSet *rs, const RuleSources *src, uid_t uid, DiagList *diag) {
        size_t old = rs->n_scopes, before = rs->n_scopes;
        for (size_t i = 1; i < rs->n_scopes && old == rs->n_scopes; i++)
                if (rs->scopes[i].user && rs->scopes[i].uid == uid)
                        old = i;

        int r = load_user(rs, src, uid, diag);
        if (r < 0) {
                while (rs->n_scopes > before) {
                        Scope *s = &rs->scopes[--rs->n_scopes];
                        rs->n_rules -= s->n_rules;
                        scope_done(s);
                }
                return r;
        }
        if (old < before) {
                /* The new scope, if any, takes the old one's place. */
                rs->n_rules -= rs->scopes[old].n_rules;
                scope_done(&rs->scopes[old]);
                if (rs->n_scopes > before)
                        rs->scopes[old] = rs->scopes[--rs->n_scopes];
                else
                        memmove(&rs->scopes[old], &rs->scopes[old + 1],
                                (--rs->n_scopes - old) * sizeof *rs->scopes);
        }
        return count_files(rs);
}

RuleSet *ruleset_free(RuleSet *rs) {
        if (!rs)
                return NULL;
        for (size_t i = 0; i < rs->n_scopes; i++)
                scope_done(&rs->scopes[i]);
        free(rs->scopes);
        for (size_t i = 0; i < rs->n_dirs; i++)
                free(rs->dirs[i]);
        free(rs->dirs);
        free(rs);
        return NULL;
}

size_t ruleset_size(const RuleSet *rs) {
        return rs ? rs->n_rules : 0;
}

size_t ruleset_user_size(const RuleSet *rs, uid_t uid) {
        for (size_t i = 1; rs && i < rs->n_scopes; i++)
                if (rs->scopes[i].user && rs->scopes[i].uid == uid)
                        return rs->scopes[i].n_rules;
        return 0;
}

bool ruleset_uses_app_ids(const RuleSet *rs) {
        for (size_t i = 0; rs && i < rs->n_scopes; i++)
                if (rs->scopes[i].app_ids)
                        return true;
        return false;
}

size_t ruleset_n_files(const RuleSet *rs) {
        return rs ? rs->n_files : 0;
}
