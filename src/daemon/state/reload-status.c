/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "core/macro.h"
#include "state/reload-status.h"
#include "core/utf8-escape.h"

static uint64_t now_realtime(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

void reload_status_clear(ReloadStatus *st) {
        free(st->system_errors);
        for (size_t i = 0; i < st->n_users; i++)
                free(st->users[i].errors);
        free(st->users);
        *st = (ReloadStatus) { .time_usec = st->time_usec };
}

/* path is dir or in it: a refused directory is reported as itself. */
static bool in_dir(const char *path, const char *dir) {
        size_t n = strlen(dir);
        return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Whose file path is: *ret the user's uid, false for the system's. */
static bool owner_of(const UserDirs *users, const char *path, uid_t *ret) {
        for (size_t i = 0; i < users->n; i++)
                if (in_dir(path, users->dirs[i].dir)) {
                        *ret = users->dirs[i].uid;
                        return true;
                }
        return false;
}

/* The errors of diag about files of uid (or, with system, about the
 * system's), one a line; NULL and 0 when there are none. -ENOMEM. */
static int errors_of(const DiagList *diag, const UserDirs *users, bool system, uid_t uid, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < diag->n; i++) {
                const Diag *d = &diag->items[i];
                uid_t owner;
                bool user = owner_of(users, d->path, &owner);
                if (d->level <= LOG_ERR && (system ? !user : user && owner == uid)) {
                        _cleanup_free_ char *path = utf8_escape_line(d->path),
                                            *message = utf8_escape_line(d->message);
                        if (!path || !message) {
                                fclose(f);
                                return -ENOMEM;
                        }
                        fprintf(f, "%s%s:%u: %s", ftell(f) > 0 ? "\n" : "", path, d->line, message);
                }
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = len > 0 ? TAKE_PTR(buf) : NULL;
        return 0;
}

static UserReloadNote *note_of(ReloadStatus *st, uid_t uid) {
        for (size_t i = 0; i < st->n_users; i++)
                if (st->users[i].uid == uid)
                        return &st->users[i];
        UserReloadNote *v = reallocarray(st->users, st->n_users + 1, sizeof *v);
        if (!v)
                return NULL;
        st->users = v;
        v[st->n_users] = (UserReloadNote) { .uid = uid };
        return &v[st->n_users++];
}

static int set_user(ReloadStatus *st, uid_t uid, const DiagList *diag, const UserDirs *users, size_t n_rules) {
        UserReloadNote *u = note_of(st, uid);
        if (!u)
                return -ENOMEM;
        free(u->errors);
        u->errors = NULL;
        u->n_rules = n_rules;
        return errors_of(diag, users, false, uid, &u->errors);
}

/* Each uid once, however many directories it has. */
static bool first_of_uid(const UserDirs *users, size_t i) {
        for (size_t j = 0; j < i; j++)
                if (users->dirs[j].uid == users->dirs[i].uid)
                        return false;
        return true;
}

size_t reload_status_system_errors(const DiagList *diag, const UserDirs *users) {
        size_t n = 0;
        for (size_t i = 0; i < diag->n; i++) {
                uid_t owner;
                n += diag->items[i].level <= LOG_ERR && !owner_of(users, diag->items[i].path, &owner);
        }
        return n;
}

int reload_status_set(ReloadStatus *st, const DiagList *diag, const UserDirs *users, const RuleSet *rs) {
        int r;

        reload_status_clear(st);
        st->time_usec = now_realtime();
        r = errors_of(diag, users, true, 0, &st->system_errors);
        st->system_rules = ruleset_size(rs);
        for (size_t i = 0; i < users->n && r >= 0; i++) {
                if (!first_of_uid(users, i))
                        continue;
                size_t n = ruleset_user_size(rs, users->dirs[i].uid);
                st->system_rules -= n;
                r = set_user(st, users->dirs[i].uid, diag, users, n);
        }
        return r;
}

int reload_status_failed(ReloadStatus *st, const char *why) {
        reload_status_clear(st);
        st->time_usec = now_realtime();
        st->system_errors = utf8_escape(why);
        return st->system_errors ? 0 : -ENOMEM;
}

int reload_status_set_user(ReloadStatus *st, uid_t uid, const DiagList *diag, const UserDirs *users,
                           size_t n_rules) {
        return set_user(st, uid, diag, users, n_rules);
}

bool reload_status_ok(const ReloadStatus *st, uid_t viewer) {
        if (st->system_errors)
                return false;
        for (size_t i = 0; i < st->n_users; i++)
                if (st->users[i].errors && (viewer == 0 || st->users[i].uid == viewer))
                        return false;
        return true;
}

char *reload_status_message(const ReloadStatus *st, uid_t viewer) {
        char *buf = NULL;
        size_t len = 0, n_rules = st->system_rules;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        if (st->system_errors)
                fputs(st->system_errors, f);
        for (size_t i = 0; i < st->n_users; i++) {
                const UserReloadNote *u = &st->users[i];
                if (viewer != 0 && u->uid != viewer)
                        continue;
                n_rules += u->n_rules;
                if (u->errors)
                        fprintf(f, "%s%s", ftell(f) > 0 ? "\n" : "", u->errors);
        }
        if (ftell(f) == 0 && st->time_usec)
                fprintf(f, "loaded %zu rules", n_rules);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

size_t reload_status_rules(const RuleSet *rs, const UserDirs *users, uid_t viewer) {
        size_t n = ruleset_size(rs);
        for (size_t i = 0; viewer != 0 && i < users->n; i++)
                if (users->dirs[i].uid != viewer && first_of_uid(users, i))
                        n -= ruleset_user_size(rs, users->dirs[i].uid);
        return n;
}
