/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What must hold after every call the fuzzer makes, whatever qosd
 * answered: qosd still answers; no reply shows anything of another user's
 * that /proc would not show the caller; no thread of the caller is above
 * the class it may have, and other users' threads are as they were. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "bus-fuzz-proc.h"

typedef struct Victim {
        pid_t tid;
        bool has_view;
        Triple view;            /* what the kernel must keep reporting */
} Victim;

typedef struct Checker {
        const char *marker;     /* in what only the victims' owners may see; NULL: none */
        uid_t uid;              /* the caller's */
        pid_t pid;
        bool has_ceiling;
        Triple ceiling;         /* the highest the caller's threads may be at */
        char **groups_above;    /* cgroups of classes above the ceiling (qosd's groups) */
        size_t n_groups_above;
        Victim *victims;
        size_t n_victims;
        uint64_t answer_usec;   /* how long qosd may take to answer Ping */
        bool has_highest;
        Triple highest;         /* the highest any thread of the caller's was seen at */
        char evidence[8192];    /* what the last violation was */
} Checker;

/* Each returns 0 if all holds, 1 on a violation (c->evidence says what),
 * or a negative errno if the check itself could not be made. */

/* org.freedesktop.DBus.Peer.Ping to qosd is answered in time. */
int check_alive(Checker *c, sd_bus *bus, const char *destination, const char *path);

/* The answer to call: reply, or the error. */
int check_reply(Checker *c, sd_bus_message *call, sd_bus_message *reply, const sd_bus_error *error);

/* The caller's threads and the victims', as the kernel reports them now. */
int check_kernel(Checker *c);
