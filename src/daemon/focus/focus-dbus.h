/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The foreground's methods and properties on the bus (in the one vtable,
 * bus/manager-dbus.c): SetForeground for trusted callers, SetFocus for session
 * sources, GetForeground for anyone. Who may say what is focus.h's. */
#pragma once

#include <systemd/sd-bus.h>

#include "state/manager.h"

int focus_method_set_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int focus_method_set_focus(sd_bus_message *msg, void *userdata, sd_bus_error *error);
/* SetGames(ai): the games gamemode runs, from the user's qos-focus (games.h). */
int focus_method_set_games(sd_bus_message *msg, void *userdata, sd_bus_error *error);
/* SetAudio(ai): the apps with a running PipeWire stream, from the same
 * helper (relayed.h). */
int focus_method_set_audio(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int focus_method_reset_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int focus_method_get_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int focus_property(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                   void *userdata, sd_bus_error *error);

/* Watch connections go, so that a session source's claim dies with it. */
int focus_bus_start(Manager *m);
