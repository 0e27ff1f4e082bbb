/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qos-focus: runs as the user in their desktop session and tells qosd
 * which process has the focus, so that the foreground gate follows the
 * user's eyes (qos-focus(1)). On X11 it follows the window manager's
 * _NET_ACTIVE_WINDOW; on the session bus it relays SetFocus from the KWin
 * script and the GNOME Shell extension. It also passes on the games
 * gamemode runs and the apps PipeWire plays for. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos-focus/focus-report.h"
#include "core/focus-source.h"
#include "core/log.h"
#include "core/macro.h"
#include "qos-config.h"
#include "qos-focus/audio-relay.h"
#include "qos-focus/gamemode-relay.h"
#include "qos-focus/session-relay.h"
#include "qos-focus/x11-active.h"

typedef struct Options {
        bool x11, relay, gamemode, audio;
        const char *source;     /* the name for X11 events */
} Options;

static void help(void) {
        printf("Usage: qos-focus [OPTIONS]\n\n"
               "Tell qosd which process has the focus in this desktop session.\n\n"
               "  --no-x11          do not follow the X11 active window (default: when $DISPLAY is set)\n"
               "  --no-relay        do not offer org.qosd.Focus1 on the session bus\n"
               "  --no-gamemode     do not pass on the games gamemoded runs\n"
               "  --no-audio        do not pass on the apps playing audio through PipeWire\n"
               "  --source NAME     the name X11 events carry (default: x11)\n"
               "  --log-level L     err, warning, info, debug\n"
               "  -h, --help        this text\n"
               "  --version\n");
}

static int parse(int argc, char **argv, Options *o) {
        enum { OPT_NO_X11 = 0x100, OPT_NO_RELAY, OPT_NO_GAMEMODE, OPT_NO_AUDIO, OPT_SOURCE, OPT_LOG_LEVEL, OPT_VERSION };
        static const struct option options[] = {
                { "no-x11", no_argument, NULL, OPT_NO_X11 },
                { "no-relay", no_argument, NULL, OPT_NO_RELAY },
                { "no-gamemode", no_argument, NULL, OPT_NO_GAMEMODE },
                { "no-audio", no_argument, NULL, OPT_NO_AUDIO },
                { "source", required_argument, NULL, OPT_SOURCE },
                { "log-level", required_argument, NULL, OPT_LOG_LEVEL },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                {}
        };
        int c, level;
        *o = (Options) { .x11 = getenv("DISPLAY") != NULL, .relay = true, .gamemode = true, .audio = true, .source = "x11" };
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case OPT_NO_X11:
                        o->x11 = false;
                        break;
                case OPT_NO_RELAY:
                        o->relay = false;
                        break;
                case OPT_NO_GAMEMODE:
                        o->gamemode = false;
                        break;
                case OPT_NO_AUDIO:
                        o->audio = false;
                        break;
                case OPT_SOURCE:
                        if (!focus_source_name_valid(optarg)) {
                                log_error("--source: 1 to %d of [a-z0-9-], not '%s'", FOCUS_SOURCE_MAX - 1, optarg);
                                return -EINVAL;
                        }
                        o->source = optarg;
                        break;
                case OPT_LOG_LEVEL:
                        level = log_level_from_string(optarg);
                        if (level < 0) {
                                log_error("--log-level: unknown level '%s'", optarg);
                                return -EINVAL;
                        }
                        log_set_max_level(level);
                        break;
                case 'h':
                        help();
                        return 0;
                case OPT_VERSION:
                        printf("qos-focus %s\n", QOS_VERSION);
                        return 0;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                log_error("unexpected argument '%s'", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

typedef struct X11Report {
        FocusReport *report;
        const char *source;
} X11Report;

static void on_x11_focus(pid_t pid, void *userdata) {
        X11Report *x = userdata;
        focus_report(x->report, x->source, pid);
}

int main(int argc, char **argv) {
        Options o;
        sd_event *event = NULL;
        FocusReport report = {};
        X11Active *x11 = NULL;
        SessionRelay *relay = NULL;
        GamemodeRelay *games = NULL;
        AudioRelay *audio = NULL;
        sigset_t mask;
        int r;

        r = parse(argc, argv, &o);
        if (r <= 0)
                return r < 0 ? 2 : 0;
        r = sd_event_default(&event);
        if (r < 0)
                return log_error_errno(r, "cannot create the event loop: %m"), 1;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        (void) sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        (void) sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);

        r = focus_report_open(&report, event);
        if (r < 0)
                goto out;
        if (o.relay) {
                r = session_relay_start(event, &report, &relay);
                if (r < 0)
                        log_info("no session bus (%s): not offering %s", strerror(-r), RELAY_BUS_NAME);
        }
        if (o.gamemode) {
                r = gamemode_relay_start(event, &report, &games);
                if (r < 0)
                        log_info("no session bus (%s): not following gamemode", strerror(-r));
        }
        if (o.audio) {
                r = audio_relay_start(event, &report, &audio);
                if (r < 0)
                        log_info("cannot follow PipeWire (%s): not passing on the apps playing audio", strerror(-r));
        }
        X11Report xr = { .report = &report, .source = o.source };
        if (o.x11) {
                r = x11_active_start(event, NULL, on_x11_focus, &xr, &x11);
                if (r < 0)
                        goto out;
        }
        if (!x11 && !relay && !games && !audio) {
                log_error("nothing to follow: no X11 display and no session bus");
                r = -ENOENT;
                goto out;
        }
        log_info("following the focus:%s%s%s%s", x11 ? " X11" : "", relay ? " " RELAY_BUS_NAME : "",
                 games ? " gamemode" : "", audio ? " PipeWire" : "");
        r = sd_event_loop(event);
out:
        x11_active_free(x11);
        session_relay_free(relay);
        gamemode_relay_free(games);
        audio_relay_free(audio);
        focus_report_close(&report);
        sd_event_unref(event);
        return r < 0 ? 1 : 0;
}
