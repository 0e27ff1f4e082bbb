/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-user rule directories (~/.config/qos/apps.d): which users have one,
 * and reading them with that user's file-system identity and no
 * capability, so that qosd, running as root, never reads a file the user
 * could not read; and only inside the user's home: links that stay in it
 * are followed, links out of it (and /proc's magic links) are not. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "config/rules.h"

typedef struct UserDirs {
        UserRuleDir *dirs;      /* dir strings owned */
        gid_t *gids;            /* the primary group of each dir's user */
        char **homes;           /* and their home directory, owned */
        size_t n;
} UserDirs;

/* Every account with uid >= min_uid whose ~/.config/qos/apps.d exists
 * (checked as that user), or is a link out of the home (for the load to
 * report). Replaces what *d held. */
int user_dirs_collect(UserDirs *d, uid_t min_uid);
void user_dirs_free(UserDirs *d);

/* RuleSources.enter_user/leave_user: take and give back the user's
 * file-system uid and gid (setfsuid/setfsgid, this thread only); userdata
 * is the UserDirs the uid came from. */
int user_fs_enter(uid_t uid, void *userdata);
void user_fs_leave(uid_t uid, void *userdata);

/* RuleSources.open_user: path opened with flags, inside uid's home with
 * tree_open() (-EXDEV: a link out of it), or, outside the home (the
 * system directories), with open(2). Call between user_fs_enter() and
 * user_fs_leave(). userdata: the UserDirs. */
int user_open(uid_t uid, const char *path, int flags, void *userdata);

/* Whether this process can read as a user: setfsuid/setfsgid take (they
 * need CAP_SETUID and CAP_SETGID) and it has no supplementary groups.
 * -EPERM if not; per-user rules are then off. */
int user_identity_check(void);

/* The loader sources for the system directories under root plus d. */
void user_dirs_sources(const UserDirs *d, const char *root, RuleSources *ret);
