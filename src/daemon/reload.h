/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading the rules, atomically: the new set is parsed completely and only
 * if it has no errors does it replace the running one; then every process
 * is re-evaluated. Triggered by SIGHUP, by D-Bus Reload(), and by inotify
 * on the rule directories. */
#pragma once

#include "manager.h"

/* Load and swap. initial: at start there is no last good set, so a set
 * with errors is taken (broken files are skipped by the loader) rather than
 * none. Returns 0 if swapped, -EINVAL if the new set had errors (the old one
 * stays), another negative errno on failure. m->last_reload says what. */
int reload_rules(Manager *m, bool initial);

/* Watch the rule directories (and their parents, to see them appear);
 * changes reload after a short settling delay. */
int reload_watch(Manager *m);
void reload_unwatch(Manager *m);
void reload_free(Manager *m);
