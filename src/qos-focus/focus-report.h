/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Telling qosd which process has the focus (SetFocus on the system bus).
 * Calls are asynchronous, so a slow qosd never delays the next event, and
 * an unchanged focus is not sent again. When qosd (re)appears on the bus it
 * is told the current focus, since its claims die with their connections
 * and a new qosd knows nothing. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <sys/types.h>

#include "core/focus-source.h"

typedef struct FocusReport {
        sd_bus *bus;
        sd_bus_slot *owner_slot;
        char source[FOCUS_SOURCE_MAX];     /* of the last event */
        pid_t pid;                              /* the focus now */
        pid_t sent;                             /* what qosd was told; -1: nothing yet */
        pid_t *games;                           /* the games gamemode runs now */
        size_t n_games;
        bool games_known;                       /* gamemode has said something */
} FocusReport;

int focus_report_open(FocusReport *r, sd_event *event);
void focus_report_close(FocusReport *r);

/* The focus is now pid (0: nothing), as source says. */
void focus_report(FocusReport *r, const char *source, pid_t pid);

/* The games gamemode runs are now pids (SetGames). -ENOMEM. */
int focus_report_games(FocusReport *r, const pid_t *pids, size_t n);
