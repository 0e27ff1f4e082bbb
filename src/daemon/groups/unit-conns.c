/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <pwd.h>
#include <string.h>

#include "core/clock.h"
#include "core/log.h"
#include "groups/unit-conns.h"
#include "units/unit-bus.h"
#include "units/unit-path.h"

/* A manager that timed out or refused is left alone for this long: a user
 * who stops their own manager costs qosd one timeout, not one per process. */
#define MANAGER_BACKOFF_USEC (30ull * 1000 * 1000)

static Conn *conn_find(UnitConns *u, bool user, uid_t uid) {
        for (size_t i = 0; i < u->n; i++)
                if (u->v[i].user == user && u->v[i].uid == uid)
                        return &u->v[i];
        return NULL;
}

static void conn_down(Conn *c, int r) {
        char who[64];
        UnitRef ref = { .user = c->user, .uid = c->uid };
        log_info("systemd: %s unreachable (%s); its units are left alone for %llu s",
                 unit_manager_describe(&ref, who, sizeof who), strerror(-r),
                 (unsigned long long) (MANAGER_BACKOFF_USEC / 1000000));
        c->bus = sd_bus_flush_close_unref(c->bus);
        c->slice_ready = false;
        c->down_until = clock_usec(CLOCK_MONOTONIC) + MANAGER_BACKOFF_USEC;
}

int unit_conns_check(Conn *c, int r) {
        if (r == -ETIMEDOUT || r == -ECONNRESET || r == -ENOTCONN || (c->bus && !sd_bus_is_open(c->bus)))
                conn_down(c, r);
        return r;
}

Conn *unit_conns_get(UnitConns *u, bool user, uid_t uid) {
        Conn *c = conn_find(u, user, uid);
        if (!c) {
                if (u->n == UNIT_CONNS_MAX) {
                        /* Reuse the oldest slot: connections are cheap to redo. */
                        sd_bus_flush_close_unref(u->v[0].bus);
                        memmove(&u->v[0], &u->v[1], (UNIT_CONNS_MAX - 1) * sizeof *c);
                        u->n--;
                }
                c = &u->v[u->n++];
                *c = (Conn) { .user = user, .uid = uid };
        }
        if (c->bus)
                return c;
        if (c->down_until && clock_usec(CLOCK_MONOTONIC) < c->down_until)
                return NULL;
        c->down_until = 0;
        struct passwd *pw = user ? getpwuid(uid) : NULL;
        int r = unit_bus_open(user, uid, pw ? pw->pw_gid : 65534, &c->bus);
        if (r < 0) {
                conn_down(c, r);
                return NULL;
        }
        return c;
}

void unit_conns_close(UnitConns *u) {
        for (size_t i = 0; i < u->n; i++)
                sd_bus_flush_close_unref(u->v[i].bus);
        u->n = 0;
}
