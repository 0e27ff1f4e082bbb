/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.qosd.Focus1 on the user's session bus, for sources that can reach
 * only that bus: KWin scripts (callDBus) and GNOME Shell extensions call
 * SetFocus(source, pid) here, and the relay passes it on to qosd. The
 * session bus is the user's own, so every caller is the user; qosd still
 * checks the user and the process itself. */
#pragma once

#include <systemd/sd-event.h>

#include "qos-focus/focus-report.h"

#define RELAY_BUS_NAME "org.qosd.Focus1"
#define RELAY_BUS_PATH "/org/qosd/Focus1"
#define RELAY_BUS_INTERFACE "org.qosd.Focus1"

typedef struct SessionRelay SessionRelay;

int session_relay_start(sd_event *event, FocusReport *report, SessionRelay **ret);
void session_relay_free(SessionRelay *s);
