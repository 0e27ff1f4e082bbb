/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the last reload said, kept apart by whose files it is about: the
 * messages about the system directories are for everyone, those about a
 * user's own files for that user and root only, and so are the user's
 * rules in the counts. LastReloadMessage, LastReloadOK, RulesLoaded and
 * the reply of Reload are read through here. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/rules.h"
#include "config/user-rules.h"

typedef struct UserReloadNote {
        uid_t uid;
        char *errors;           /* "path:line: message" lines about the user's files; NULL: none */
        size_t n_rules;         /* in the user's scope (ruleset_user_size()) */
} UserReloadNote;

typedef struct ReloadStatus {
        uint64_t time_usec;     /* CLOCK_REALTIME of the last full load */
        char *system_errors;    /* about the system files, or why the load failed; NULL: none */
        size_t system_rules;    /* the rules of the load outside the users' scopes */
        UserReloadNote *users;  /* the users whose files were read, one each */
        size_t n_users;
} ReloadStatus;

void reload_status_clear(ReloadStatus *st);

/* The errors (LOG_ERR) in diag about the system's files: those not in a
 * directory of users (a refused directory counts as in itself). */
size_t reload_status_system_errors(const DiagList *diag, const UserDirs *users);
/* After a full load: its errors taken apart by owner as above; rs the set
 * it made. -ENOMEM. */
int reload_status_set(ReloadStatus *st, const DiagList *diag, const UserDirs *users, const RuleSet *rs);
/* After a load that made no rule set at all: why (strerror). -ENOMEM. */
int reload_status_failed(ReloadStatus *st, const char *why);
/* After a reload of uid's rules alone: that user's part. -ENOMEM. */
int reload_status_set_user(ReloadStatus *st, uid_t uid, const DiagList *diag, const UserDirs *users,
                           size_t n_rules);

/* As viewer reads it: root (uid 0) all of it; anyone else the system's
 * part and their own. ok: no error in it; the message: the errors one a
 * line, or "loaded N rules" (N counting the viewer's own and the system's
 * rules), ready for the bus: names escaped by utf8_escape_line(), so that
 * none splits a line. NULL when out of memory. */
bool reload_status_ok(const ReloadStatus *st, uid_t viewer);
char *reload_status_message(const ReloadStatus *st, uid_t viewer);
/* The rules in rs viewer may count: all for root, else the system's and
 * the viewer's own (users: the directories rs was loaded from). */
size_t reload_status_rules(const RuleSet *rs, const UserDirs *users, uid_t viewer);
