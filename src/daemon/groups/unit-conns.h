/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The connections to the systemd managers whose units qosd weighs: the
 * system's and each user's, opened when first needed, at most
 * UNIT_CONNS_MAX (a hostile user cannot make qosd hold more), and a
 * manager that does not answer is left alone for a while. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

#define UNIT_CONNS_MAX 64

typedef struct Conn {
        bool user;
        uid_t uid;
        sd_bus *bus;
        uint64_t down_until;    /* CLOCK_MONOTONIC; 0: usable */
        bool slice_ready;       /* qos.slice exists there and is idle */
} Conn;

typedef struct UnitConns {
        Conn v[UNIT_CONNS_MAX];
        size_t n;
} UnitConns;

/* The connection to a manager, opened if needed; NULL while it is in
 * backoff or cannot be reached. */
Conn *unit_conns_get(UnitConns *u, bool user, uid_t uid);

/* r, the result of a call on c: a broken or silent connection puts the
 * manager in backoff. */
int unit_conns_check(Conn *c, int r);

void unit_conns_close(UnitConns *u);
