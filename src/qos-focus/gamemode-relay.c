/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "core/log.h"
#include "core/macro.h"
#include "qos-focus/gamemode-relay.h"

/* More games than anyone runs; qosd takes no more (FOREGROUND_MAX). */
#define GAMES_MAX 1024

struct GamemodeRelay {
        sd_bus *bus;
        sd_bus_slot *signals, *owner;
        FocusReport *report;
};

/* ListGames's "a(io)": each game's PID. */
static int on_list(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        GamemodeRelay *g = userdata;
        pid_t games[GAMES_MAX];
        size_t n = 0;
        int32_t pid;
        const char *path;
        int r;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                /* gamemoded is gone (or never was): no game runs. */
                log_debug("gamemode: %s", sd_bus_message_get_error(reply)->message ?: "no answer");
                return focus_report_list(g->report, REPORT_GAMES, NULL, 0);
        }
        r = sd_bus_message_enter_container(reply, 'a', "(io)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(io)", &pid, &path)) > 0)
                if (pid > 0 && n < GAMES_MAX)
                        games[n++] = pid;
        if (r < 0) {
                log_warning_errno(r, "gamemode: a malformed list of games: %m");
                return 0;
        }
        return focus_report_list(g->report, REPORT_GAMES, games, n);
}

/* Without auto-start: a gamemoded that is not running has no games, and
 * is not started for the question. */
static void refresh(GamemodeRelay *g) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r = sd_bus_message_new_method_call(g->bus, &m, GAMEMODE_BUS_NAME, GAMEMODE_BUS_PATH,
                                               GAMEMODE_BUS_INTERFACE, "ListGames");
        if (r >= 0)
                r = sd_bus_message_set_auto_start(m, false);
        if (r >= 0)
                r = sd_bus_call_async(g->bus, NULL, m, on_list, g, 0);
        if (r < 0)
                log_warning_errno(r, "gamemode: cannot ask for its games: %m");
}

static int on_signal(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        log_debug("gamemode: %s", sd_bus_message_get_member(msg) ?: "?");
        refresh(userdata);
        return 0;
}

static int on_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const char *name, *old, *new;
        if (sd_bus_message_read(msg, "sss", &name, &old, &new) >= 0 && strcmp(name, GAMEMODE_BUS_NAME) == 0)
                refresh(userdata); /* it came (its games) or went (none) */
        return 0;
}

int gamemode_relay_start(sd_event *event, FocusReport *report, GamemodeRelay **ret) {
        GamemodeRelay *g = calloc(1, sizeof *g);
        int r;
        if (!g)
                return -ENOMEM;
        g->report = report;
        r = sd_bus_open_user(&g->bus);
        /* From gamemoded only: anyone on the bus may send a signal, but
         * only the name's owner one with its name as sender. */
        if (r >= 0)
                r = sd_bus_match_signal(g->bus, &g->signals, GAMEMODE_BUS_NAME, GAMEMODE_BUS_PATH,
                                        GAMEMODE_BUS_INTERFACE, NULL, on_signal, g);
        if (r >= 0)
                r = sd_bus_match_signal(g->bus, &g->owner, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "NameOwnerChanged", on_owner_changed, g);
        if (r >= 0)
                r = sd_bus_set_exit_on_disconnect(g->bus, true);
        if (r >= 0)
                r = sd_bus_attach_event(g->bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0) {
                gamemode_relay_free(g);
                return r;
        }
        refresh(g); /* the games that run already */
        *ret = g;
        return 0;
}

void gamemode_relay_free(GamemodeRelay *g) {
        if (!g)
                return;
        sd_bus_slot_unref(g->signals);
        sd_bus_slot_unref(g->owner);
        sd_bus_flush_close_unref(g->bus);
        free(g);
}
