/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs-identity.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/tree-open.h"
#include "config/user-rules.h"

#define USER_RULE_SUBDIR ".config/qos/apps.d"

void user_dirs_free(UserDirs *d) {
        for (size_t i = 0; i < d->n; i++) {
                free((char *) d->dirs[i].dir); /* owned: allocated by user_dirs_collect */
                free(d->homes[i]);
        }
        free(d->dirs);
        free(d->gids);
        free(d->homes);
        *d = (UserDirs) {};
}

static gid_t gid_of(const UserDirs *d, uid_t uid) {
        for (size_t i = 0; i < d->n; i++)
                if (d->dirs[i].uid == uid)
                        return d->gids[i];
        return (gid_t) -1;
}

static const char *home_of(const UserDirs *d, uid_t uid) {
        for (size_t i = 0; i < d->n; i++)
                if (d->dirs[i].uid == uid)
                        return d->homes[i];
        return NULL;
}

/* In the home through tree_open(); outside it, the system directories a
 * user's scope reads too, with open(2). */
int user_open(uid_t uid, const char *path, int flags, void *userdata) {
        const char *home = home_of(userdata, uid);
        return home ? tree_open_path(home, path, flags) : -ENOENT;
}

int user_fs_enter(uid_t uid, void *userdata) {
        gid_t gid = gid_of(userdata, uid);
        if (gid == (gid_t) -1)
                return -ENOENT;
        return fs_identity_enter(uid, gid);
}

void user_fs_leave(uid_t uid, void *userdata) {
        fs_identity_leave();
}

int user_identity_check(void) {
        /* Root's supplementary groups stay with any fs identity: they would
         * let a user's rule point at a file only root's groups can read. */
        if (getgroups(0, NULL) > 0)
                return -EPERM;
        int r = fs_identity_enter(65534, 65534);
        if (r < 0)
                return r;
        user_fs_leave(65534, NULL);
        return 0;
}

/* Whether the user has a rule directory to load: one there is, or one
 * that is a link out of the home, which the load reports to the user. */
static bool has_dir_as(uid_t uid, gid_t gid, const char *home, const char *path) {
        struct stat st;
        int r = fs_identity_enter(uid, gid);
        if (r < 0) {
                log_debug("uid %u: cannot read files as this user: %s", (unsigned) uid, strerror(-r));
                return false;
        }
        _cleanup_close_ int fd = tree_open_path(home, path, O_PATH);
        bool ok = fd == -EXDEV || (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode));
        user_fs_leave(uid, NULL);
        if (!ok && fd != -ENOENT)
                log_debug("uid %u: no rule directory %s: %s", (unsigned) uid, path,
                          fd < 0 ? strerror(-fd) : "not a directory");
        return ok;
}

/* Takes path and home. */
static int push(UserDirs *d, uid_t uid, gid_t gid, char *path, char *home) {
        UserRuleDir *nd = realloc(d->dirs, (d->n + 1) * sizeof *nd);
        if (!nd)
                return -ENOMEM;
        d->dirs = nd;
        gid_t *ng = realloc(d->gids, (d->n + 1) * sizeof *ng);
        if (!ng)
                return -ENOMEM;
        d->gids = ng;
        char **nh = realloc(d->homes, (d->n + 1) * sizeof *nh);
        if (!nh)
                return -ENOMEM;
        d->homes = nh;
        d->dirs[d->n] = (UserRuleDir) { .uid = uid, .dir = path };
        d->gids[d->n] = gid;
        d->homes[d->n] = home;
        d->n++;
        return 0;
}

int user_dirs_collect(UserDirs *d, uid_t min_uid) {
        UserDirs n = {};
        struct passwd *pw;
        int r = 0;

        user_dirs_free(d);
        setpwent();
        while ((pw = getpwent())) {
                if (pw->pw_uid < min_uid || pw->pw_uid == 65534 || !pw->pw_dir || pw->pw_dir[0] != '/')
                        continue;
                char *path = NULL, *home = strdup(pw->pw_dir);
                if (!home || asprintf(&path, "%s/" USER_RULE_SUBDIR, pw->pw_dir) < 0) {
                        free(home);
                        r = -ENOMEM;
                        break;
                }
                if (!has_dir_as(pw->pw_uid, pw->pw_gid, home, path)) {
                        free(path);
                        free(home);
                        continue;
                }
                r = push(&n, pw->pw_uid, pw->pw_gid, path, home);
                if (r < 0) {
                        free(path);
                        free(home);
                        break;
                }
        }
        endpwent();
        if (r < 0) {
                user_dirs_free(&n);
                return r;
        }
        *d = n;
        return 0;
}

void user_dirs_sources(const UserDirs *d, const char *root, RuleSources *ret) {
        *ret = (RuleSources) {
                .root = root,
                .user_dirs = d->dirs,
                .n_user_dirs = d->n,
                .enter_user = user_fs_enter,
                .leave_user = user_fs_leave,
                .open_user = user_open,
                .userdata = (void *) d,
        };
}
