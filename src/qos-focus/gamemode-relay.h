/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The games Feral's gamemoded runs, from the user's session bus to qosd
 * (SetGames). gamemoded signals GameRegistered and GameUnregistered; at
 * each, and when it appears or goes, the relay reads the whole list
 * (ListGames) and passes it on, so a missed signal costs nothing. Its PIDs
 * are the processes it renices, the user's own; qosd checks them again. */
#pragma once

#include <systemd/sd-event.h>

#include "qos-focus/focus-report.h"

#define GAMEMODE_BUS_NAME "com.feralinteractive.GameMode"
#define GAMEMODE_BUS_PATH "/com/feralinteractive/GameMode"
#define GAMEMODE_BUS_INTERFACE "com.feralinteractive.GameMode"

typedef struct GamemodeRelay GamemodeRelay;

int gamemode_relay_start(sd_event *event, FocusReport *report, GamemodeRelay **ret);
void gamemode_relay_free(GamemodeRelay *g);
