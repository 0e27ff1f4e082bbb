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

/* The lists of processes qosd is told besides the focus. */
typedef enum ReportList {
        REPORT_GAMES,           /* the games gamemode runs (SetGames) */
        REPORT_AUDIO,           /* the apps playing audio (SetAudio) */
        _REPORT_LIST_MAX,
} ReportList;

typedef struct ReportedPids {
        pid_t *pids;
        size_t n;
        bool known;             /* its source has said something */
} ReportedPids;

typedef struct FocusReport {
        sd_bus *bus;
        sd_bus_slot *owner_slot;
        char source[FOCUS_SOURCE_MAX];     /* of the last event */
        pid_t pid;                              /* the focus now */
        pid_t sent;                             /* what qosd was told; -1: nothing yet */
        ReportedPids lists[_REPORT_LIST_MAX];
} FocusReport;

int focus_report_open(FocusReport *r, sd_event *event);
void focus_report_close(FocusReport *r);

/* The focus is now pid (0: nothing), as source says. */
void focus_report(FocusReport *r, const char *source, pid_t pid);

/* List k is now pids: passed on (SetGames, SetAudio) unless it is what
 * qosd was told last. -ENOMEM. */
int focus_report_list(FocusReport *r, ReportList k, const pid_t *pids, size_t n);
