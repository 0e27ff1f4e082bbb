/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The games gamemode runs. gamemoded (Feral's GameMode, on the user's
 * session bus) registers a game when it starts under gamemoderun or asks
 * itself; the user's qos-focus relays the list (SetGames), with the checks
 * of a session source: the user sits at a seat, the games are theirs.
 * While a game runs it is in the foreground, beside whatever the focus
 * source says: its rules' user-interactive is not held, and a game no rule
 * names gets user-initiated for its main thread (decide.h). The list dies
 * with the relay's connection, and when its user leaves the seat. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "state/manager.h"

/* Replace the list: the games of owner (the user the relay speaks for;
 * (uid_t) -1 for a trusted caller), relayed on connection sender. The
 * processes that entered or left are judged again. The number of games
 * taken, or -ENOMEM. */
int games_set(Manager *m, uid_t owner, const char *sender, const pid_t *pids, size_t n);

/* Process pid, started at start_time, is a registered game now. */
bool games_contains(const Manager *m, pid_t pid, uint64_t start_time);

/* The relay's connection is gone, or the bus; the user left the seat. */
void games_connection_gone(Manager *m, const char *name);
void games_user_left(Manager *m, bool (*at_seat)(const Manager *m, uid_t uid));

/* For qosctl status: "none", or "2: 4242 4310 (gamemode, uid 1000)". */
const char *games_describe(const Manager *m, char *buf, size_t size);

void games_free(Manager *m);
