/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who sits at the machine: the users of the active sessions on seats, as
 * logind says (sd-login reads /run/systemd/sessions and seats directly, so
 * this works without a bus). A foreground source speaks for such a user
 * only, and without any source user-interactive goes to them (focus.h).
 * On a machine without logind nobody sits at a seat. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>
#include <sys/types.h>

/* More seats than any machine has; the rest are ignored. */
#define SEATS_MAX 16

typedef struct Seats {
        bool logind;                    /* logind runs (its seat directory exists) */
        uid_t active[SEATS_MAX];        /* the user of each seat's active session */
        size_t n_active;
        sd_event_source *source;        /* sd_login_monitor's fd */
        void *monitor;                  /* sd_login_monitor* */
        void (*changed)(void *userdata);
        void *userdata;
} Seats;

/* Read the seats, and call changed(userdata) whenever the active sessions
 * change (a login, a user switch, a lock screen that switches VT). Without
 * logind: no seats, no calls, 0. */
int seats_start(Seats *s, sd_event *event, void (*changed)(void *userdata), void *userdata);
void seats_stop(Seats *s);

bool seats_user_active(const Seats *s, uid_t uid);

/* The process's own logind session, if it has one, is active: 1; it has
 * one and it is not active: 0; it has none (a service of the user's
 * manager, where gnome-shell and kwin run on systemd desktops): 1. */
int seats_session_of_pid_active(pid_t pid);

/* "uid 1000 on seat0" or "none (logind is not running)". */
const char *seats_describe(const Seats *s, char *buf, size_t size);
