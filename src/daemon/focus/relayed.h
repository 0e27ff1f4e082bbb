/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Processes another daemon of the user's session knows something about,
 * relayed by the user's qos-focus with the checks of a session source (the
 * user sits at a seat, the processes are theirs):
 *
 *  - the games gamemode runs (SetGames): gamemoded registers a game when
 *    it starts under gamemoderun. While a game runs it is in the
 *    foreground, beside whatever the focus source says: its rules'
 *    user-interactive is not held, and a game no rule names gets
 *    user-initiated for its main thread (decide.h);
 *  - the apps playing audio (SetAudio): a PipeWire stream of theirs is
 *    running. Out of the foreground, their rules' user-interactive is held
 *    at user-initiated instead of utility, so music does not stutter
 *    behind another window.
 *
 * A list dies with the relay's connection, and when its user leaves the
 * seat. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "state/manager.h"

typedef enum RelayedKind {
        RELAYED_GAMES,
        RELAYED_AUDIO,
        _RELAYED_MAX,
} RelayedKind;

/* Replace list k: the processes of owner (the user the relay speaks for;
 * (uid_t) -1 for a trusted caller), relayed on connection sender. The
 * processes that entered or left are judged again. The number taken, or
 * -ENOMEM. */
int relayed_set(Manager *m, RelayedKind k, uid_t owner, const char *sender, const pid_t *pids, size_t n);

/* Process pid, started at start_time, is in list k now. */
bool relayed_contains(const Manager *m, RelayedKind k, pid_t pid, uint64_t start_time);

/* The same for a process of which only the PID is known (its start time
 * read now). */
bool relayed_contains_pid(const Manager *m, RelayedKind k, pid_t pid);

/* A relay's connection is gone (name), or the bus (NULL); a user left the
 * seat. Every list it relayed is dropped. */
void relayed_connection_gone(Manager *m, const char *name);
void relayed_user_left(Manager *m, bool (*at_seat)(const Manager *m, uid_t uid));

/* For qosctl status: "none", or "2: 4242 4310 (gamemode, uid 1000)". */
const char *relayed_describe(const Manager *m, RelayedKind k, char *buf, size_t size);

void relayed_free(Manager *m);
