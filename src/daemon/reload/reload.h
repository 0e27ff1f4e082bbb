/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading the rules, atomically: the new set is parsed completely and only
 * if it has no errors does it replace the running one; then every process
 * is re-evaluated. Triggered by SIGHUP, by D-Bus Reload(), and by inotify
 * on the rule directories. */
#pragma once

#include "state/manager.h"

/* Load and swap. initial: at start there is no last good set, so a set
 * with errors is taken (broken files are skipped by the loader) rather than
 * none. Returns 0 if swapped, -EINVAL if the new set had errors (the old one
 * stays), another negative errno on failure. m->last_reload says what. */
int reload_rules(Manager *m, bool initial);

/* Load uid's own rules again (read as the user, within the limits of
 * qosd.conf), put them in place of that user's previous ones, and evaluate
 * that user's processes again. The system's rules and other users' stay
 * as they are. Errors in the user's files are logged and skip that file. */
int reload_user_rules(Manager *m, uid_t uid);

/* Watching (reload-watch.c): the system rule directories (and their
 * parents, to see them appear) and each user's. A change in the system
 * directories reloads everything after a short settling delay; a change
 * in a user's directory reloads only that user's rules, at most once per
 * UserRulesReloadIntervalSec=, and never delays a system reload. */
int reload_watch(Manager *m);
/* After a full load: watch the directories that exist now, drop pending
 * per-user reloads. */
void reload_watch_refresh(Manager *m);
void reload_unwatch(Manager *m);
/* UserReloads as viewer reads it: root every user's, anyone else their
 * own (when another user edits their rules is theirs to know). */
uint64_t reload_user_reloads(Manager *m, uid_t viewer);
void reload_free(Manager *m);
