/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/macro.h"
#include "core/proc.h"
#include "focus/foreground.h"
#include "focus/relayed.h"

struct Relayed {
        Foreground set;         /* the processes, each pinned by its start time */
        uid_t owner;            /* the user the relay spoke for; -1: a trusted caller */
        char *sender;           /* the relay's connection */
};

_Static_assert(_RELAYED_MAX == ELEMENTSOF(((Manager *) NULL)->relayed), "one list per kind");

static const struct {
        const char *what;       /* for the log */
        const char *from;       /* for qosctl status */
} kinds[_RELAYED_MAX] = {
        [RELAYED_GAMES] = { "the games gamemode runs", "gamemode" },
        [RELAYED_AUDIO] = { "the apps playing audio", "PipeWire" },
};

/* Judge again the processes that were in the list and those that are now. */
static void moved(Manager *m, Relayed *l, const pid_t *before, size_t n_before, const char *why) {
        _cleanup_free_ pid_t *all = NULL;
        size_t n;
        if (m->gate_moved && foreground_moved(&l->set, before, n_before, &all, &n) >= 0)
                m->gate_moved(m, all, n, why);
}

int relayed_set(Manager *m, RelayedKind k, uid_t owner, const char *sender, const pid_t *pids, size_t n) {
        Relayed *l = m->relayed[k];
        _cleanup_free_ pid_t *before = NULL;
        size_t n_before = 0;
        char *copy = NULL, why[64];
        int taken;

        if (!l) {
                l = m->relayed[k] = calloc(1, sizeof *l);
                if (!l)
                        return -ENOMEM;
        }
        if ((sender && !(copy = strdup(sender))) || foreground_list(&l->set, &before, &n_before) < 0) {
                free(copy);
                return -ENOMEM;
        }
        taken = foreground_set(&l->set, pids, n);
        free(l->sender);
        l->sender = copy;
        l->owner = owner;
        log_debug("%s, from uid %d: %d", kinds[k].what, owner == (uid_t) -1 ? -1 : (int) owner, taken);
        snprintf(why, sizeof why, "%s changed", kinds[k].what);
        moved(m, l, before, n_before, why);
        return taken;
}

bool relayed_contains(const Manager *m, RelayedKind k, pid_t pid, uint64_t start_time) {
        return m->relayed[k] && foreground_contains(&m->relayed[k]->set, pid, start_time);
}

bool relayed_contains_pid(const Manager *m, RelayedKind k, pid_t pid) {
        uint64_t start;
        return m->relayed[k] && pid_map_size(&m->relayed[k]->set.by_pid) > 0 && proc_start_time(pid, &start) >= 0 &&
               relayed_contains(m, k, pid, start);
}

static void drop(Manager *m, RelayedKind k, const char *why) {
        Relayed *l = m->relayed[k];
        _cleanup_free_ pid_t *before = NULL;
        size_t n_before = 0;
        if (foreground_list(&l->set, &before, &n_before) < 0)
                return;
        log_info("%s are forgotten: %s", kinds[k].what, why);
        foreground_clear(&l->set);
        free(l->sender);
        l->sender = NULL;
        l->owner = (uid_t) -1;
        moved(m, l, before, n_before, why);
}

void relayed_connection_gone(Manager *m, const char *name) {
        for (RelayedKind k = 0; k < _RELAYED_MAX; k++) {
                Relayed *l = m->relayed[k];
                if (l && l->sender && (!name || strcmp(l->sender, name) == 0))
                        drop(m, k, name ? "their relay disconnected" : "the bus went away");
        }
}

void relayed_user_left(Manager *m, bool (*at_seat)(const Manager *m, uid_t uid)) {
        for (RelayedKind k = 0; k < _RELAYED_MAX; k++) {
                Relayed *l = m->relayed[k];
                if (l && l->owner != (uid_t) -1 && pid_map_size(&l->set.by_pid) > 0 && !at_seat(m, l->owner))
                        drop(m, k, "their user left the seat");
        }
}

const char *relayed_describe(const Manager *m, RelayedKind k, char *buf, size_t size) {
        const Relayed *l = m->relayed[k];
        _cleanup_free_ pid_t *list = NULL;
        size_t n = 0;
        if (!l || foreground_list(&l->set, &list, &n) < 0 || n == 0) {
                snprintf(buf, size, "none");
                return buf;
        }
        int len = snprintf(buf, size, "%zu:", n);
        for (size_t i = 0; i < n && len > 0 && (size_t) len < size; i++)
                len += snprintf(buf + len, size - (size_t) len, " %d", (int) list[i]);
        if (len > 0 && (size_t) len < size) {
                if (l->owner == (uid_t) -1)
                        snprintf(buf + len, size - (size_t) len, " (%s, a trusted caller)", kinds[k].from);
                else
                        snprintf(buf + len, size - (size_t) len, " (%s, uid %u)", kinds[k].from, (unsigned) l->owner);
        }
        return buf;
}

void relayed_free(Manager *m) {
        for (RelayedKind k = 0; k < _RELAYED_MAX; k++) {
                Relayed *l = m->relayed[k];
                if (!l)
                        continue;
                foreground_clear(&l->set);
                free(l->sender);
                free(l);
                m->relayed[k] = NULL;
        }
}
