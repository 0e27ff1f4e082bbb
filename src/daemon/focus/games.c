/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/macro.h"
#include "focus/foreground.h"
#include "focus/games.h"

struct Games {
        Foreground set;         /* the games, each pinned by its start time */
        uid_t owner;            /* the user the relay spoke for; -1: a trusted caller */
        char *sender;           /* the relay's connection */
};

/* Judge again the processes that were games and those that are now. */
static void moved(Manager *m, const pid_t *before, size_t n_before, const char *why) {
        _cleanup_free_ pid_t *all = NULL;
        size_t n;
        if (m->gate_moved && foreground_moved(&m->games->set, before, n_before, &all, &n) >= 0)
                m->gate_moved(m, all, n, why);
}

int games_set(Manager *m, uid_t owner, const char *sender, const pid_t *pids, size_t n) {
        Games *g = m->games;
        _cleanup_free_ pid_t *before = NULL;
        size_t n_before = 0;
        char *copy = NULL;
        int taken;

        if (!g) {
                g = m->games = calloc(1, sizeof *g);
                if (!g)
                        return -ENOMEM;
        }
        if ((sender && !(copy = strdup(sender))) || foreground_list(&g->set, &before, &n_before) < 0) {
                free(copy);
                return -ENOMEM;
        }
        taken = foreground_set(&g->set, pids, n);
        free(g->sender);
        g->sender = copy;
        g->owner = owner;
        log_debug("games from uid %d: %d running", owner == (uid_t) -1 ? -1 : (int) owner, taken);
        moved(m, before, n_before, "the games gamemode runs changed");
        return taken;
}

bool games_contains(const Manager *m, pid_t pid, uint64_t start_time) {
        return m->games && foreground_contains(&m->games->set, pid, start_time);
}

static void drop(Manager *m, const char *why) {
        Games *g = m->games;
        _cleanup_free_ pid_t *before = NULL;
        size_t n_before = 0;
        if (foreground_list(&g->set, &before, &n_before) < 0)
                return;
        log_info("the games list is dropped: %s", why);
        foreground_clear(&g->set);
        free(g->sender);
        g->sender = NULL;
        g->owner = (uid_t) -1;
        moved(m, before, n_before, why);
}

void games_connection_gone(Manager *m, const char *name) {
        Games *g = m->games;
        if (g && g->sender && (!name || strcmp(g->sender, name) == 0))
                drop(m, name ? "its relay disconnected" : "the bus went away");
}

void games_user_left(Manager *m, bool (*at_seat)(const Manager *m, uid_t uid)) {
        Games *g = m->games;
        if (g && g->owner != (uid_t) -1 && pid_map_size(&g->set.by_pid) > 0 && !at_seat(m, g->owner))
                drop(m, "its user left the seat");
}

const char *games_describe(const Manager *m, char *buf, size_t size) {
        _cleanup_free_ pid_t *list = NULL;
        size_t n = 0;
        if (!m->games || foreground_list(&m->games->set, &list, &n) < 0 || n == 0) {
                snprintf(buf, size, "none");
                return buf;
        }
        int len = snprintf(buf, size, "%zu:", n);
        for (size_t i = 0; i < n && len > 0 && (size_t) len < size; i++)
                len += snprintf(buf + len, size - (size_t) len, " %d", (int) list[i]);
        if (len > 0 && (size_t) len < size) {
                if (m->games->owner == (uid_t) -1)
                        snprintf(buf + len, size - (size_t) len, " (gamemode, a trusted caller)");
                else
                        snprintf(buf + len, size - (size_t) len, " (gamemode, uid %u)", (unsigned) m->games->owner);
        }
        return buf;
}

void games_free(Manager *m) {
        Games *g = m->games;
        if (!g)
                return;
        foreground_clear(&g->set);
        free(g->sender);
        free(g);
        m->games = NULL;
}
