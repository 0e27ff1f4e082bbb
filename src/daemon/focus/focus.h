/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The foreground gate: which processes may have user-interactive now.
 *
 * Sources of the foreground, newest event wins (one foreground per
 * machine):
 * - SetForeground (root, ForegroundUser=/ForegroundGroup=: the compositor
 *   or `qosctl foreground`): any processes; stands until replaced.
 * - SetFocus from a session source (qos-focus for X11, the KWin script, the
 *   GNOME Shell extension): the caller must be the user of an active seat
 *   session (and, if it has a session itself, that session must be the
 *   active one), and may name only that user's processes. The claim lasts
 *   while the caller's bus connection does.
 * - mutter's user.xdg.inactive-since on the active users' app scopes
 *   (focus-mutter.h).
 * A user switch drops what a source said for the user who left.
 *
 * ForegroundGate=auto (the default), before any source has spoken or after
 * its claim went: user-interactive for the processes of root and of the
 * users of active seat sessions; everyone else's is held at utility. So a
 * shared machine without a desktop gives it to nobody but root, and a
 * desktop keeps the user's rules before its source starts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/focus-source.h"
#include "state/manager.h"


/* Read the seats and watch them (and mutter's marks); before the first
 * scan, so that the first verdicts already know who sits at the machine. */
int focus_start(Manager *m);
void focus_free(Manager *m);

/* The gate holds user-interactive for process pid now. */
bool focus_holds_interactive(const Manager *m, pid_t pid);

/* Why (for the broker's reply and explain), e.g. "not in the foreground"
 * or "no foreground source, and uid 1001 has no active seat session". */
const char *focus_hold_reason(const Manager *m, pid_t pid, char *buf, size_t size);

/* For `qosctl explain`: "yes", "no (the foreground is ... )", or why the
 * gate does not apply to it. */
const char *focus_state_of(const Manager *m, pid_t pid, char *buf, size_t size);

/* For `qosctl status`: the source in force, or the default policy. */
const char *focus_describe(const Manager *m, char *buf, size_t size);

/* A source spoke: make these processes the foreground (n may be 0: nothing
 * of anyone's is focused), move the threads whose verdict changes.
 * owner is the user the source speaks for, (uid_t) -1 for a trusted
 * caller; sender the bus connection the claim dies with, or NULL. Returns
 * the number of processes taken or a negative errno. */
int focus_set(Manager *m, const char *source, uid_t owner, const char *sender, const pid_t *pids, size_t n);

/* The users of active seat sessions (for SetFocus's checks). */
bool focus_user_at_seat(const Manager *m, uid_t uid);

/* Forget what the sources said: the default policy of ForegroundGate=
 * again, as before any source spoke. 1 if there was a claim, else 0. */
int focus_reset(Manager *m, const char *why);

/* What a user's session sources (SetFocus from a seat user, not a trusted
 * caller) may make qosd spend on the rules for the processes that enter
 * and leave the foreground: 5% of a CPU, in bursts of half a second (one
 * change is charged half a second at most). A source that switches the
 * focus in a loop between programs of thousands of threads is refused
 * (RateLimited) until its budget refills. */
#define FOCUS_COST_USEC_PER_SEC 50000.0
#define FOCUS_COST_BURST_USEC 500000.0
bool focus_budget_ready(Manager *m, uid_t uid);
void focus_budget_charge(Manager *m, uid_t uid, uint64_t usec);

/* A refused claim, for the ForegroundRefused counter. */
void focus_count_refused(Manager *m);

/* The foreground's live members, ascending; caller frees. */
int focus_list(const Manager *m, pid_t **ret, size_t *ret_n);

/* A bus connection went away (NameOwnerChanged with no new owner). */
void focus_connection_gone(Manager *m, const char *name);
/* The bus went away, and every connection with it. */
void focus_bus_lost(Manager *m);

/* A source has set the foreground, or ForegroundGate=yes: only its
 * members may have user-interactive. */
bool focus_gate_engaged(const Manager *m);

/* Counters for the bus properties. */
uint64_t focus_events(const Manager *m);
uint64_t focus_refused(const Manager *m);
