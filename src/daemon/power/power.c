/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/class-table.h"
#include "core/log.h"
#include "core/macro.h"
#include "power/power.h"

#define PROFILE_MAX 32

typedef struct Source {
        const char *name, *path, *iface, *property;
        bool battery;           /* OnBattery (b), else ActiveProfile (s) */
} Source;

/* power-profiles-daemon under both of its names (0.20 took the UPower
 * one, and keeps the old one), and UPower for the battery. */
static const Source sources[] = {
        { "org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles",
          "org.freedesktop.UPower.PowerProfiles", "ActiveProfile", false },
        { "net.hadess.PowerProfiles", "/net/hadess/PowerProfiles", "net.hadess.PowerProfiles", "ActiveProfile",
          false },
        { "org.freedesktop.UPower", "/org/freedesktop/UPower", "org.freedesktop.UPower", "OnBattery", true },
};

/* What a callback needs: the manager, and whose answer it is. */
typedef struct Heard {
        Manager *m;
        const Source *source;
} Heard;

struct Power {
        char profile[PROFILE_MAX];      /* ActiveProfile; "" while no one says */
        bool on_battery;
        Heard heard[ELEMENTSOF(sources)];
};

static Power *power_of(Manager *m) {
        if (!m->power && (m->power = calloc(1, sizeof *m->power)))
                for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                        m->power->heard[i] = (Heard) { m, &sources[i] };
        return m->power;
}

static PowerMode mode_of(const Power *p) {
        if (p->on_battery || strcmp(p->profile, "power-saver") == 0)
                return POWER_SAVER;
        return strcmp(p->profile, "performance") == 0 ? POWER_PERFORMANCE : POWER_BALANCED;
}

/* The table in force follows; every managed thread is judged again. */
static void update(Manager *m) {
        PowerMode mode = mode_of(m->power);
        if (mode == class_table_power())
                return;
        class_table_set_power(mode);
        log_info("power: %s (profile %s%s): the classes follow", power_mode_to_string(mode),
                 *m->power->profile ? m->power->profile : "unknown", m->power->on_battery ? ", on battery" : "");
        if (m->gate_moved)
                m->gate_moved(m, NULL, 0, "the power profile changed");
}

static void take_profile(Manager *m, const char *profile) {
        Power *p = power_of(m);
        if (!p)
                return;
        snprintf(p->profile, sizeof p->profile, "%s", profile);
        update(m);
}

static void take_battery(Manager *m, bool on) {
        Power *p = power_of(m);
        if (!p)
                return;
        p->on_battery = on;
        update(m);
}

/* A property's value, as Get returns it and PropertiesChanged carries it. */
static int take_value(Manager *m, const Source *s, sd_bus_message *msg) {
        int r;
        if (s->battery) {
                int on;
                r = sd_bus_message_read(msg, "v", "b", &on);
                if (r >= 0)
                        take_battery(m, on);
        } else {
                const char *profile;
                r = sd_bus_message_read(msg, "v", "s", &profile);
                if (r >= 0)
                        take_profile(m, profile);
        }
        return r;
}

static int on_get(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const Heard *h = userdata;
        if (sd_bus_message_is_method_error(reply, NULL))
                return 0; /* not there: nothing said */
        if (take_value(h->m, h->source, reply) < 0)
                log_debug("power: a malformed answer from %s", h->source->name);
        return 0;
}

static void ask(const Heard *h) {
        const Source *s = h->source;
        int r = sd_bus_call_method_async(h->m->bus, NULL, s->name, s->path, "org.freedesktop.DBus.Properties", "Get",
                                         on_get, (void *) h, "ss", s->iface, s->property);
        if (r < 0)
                log_debug_errno(r, "power: cannot ask %s: %m", s->name);
}

static int on_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const Heard *h = userdata;
        const char *iface, *key;
        int r = sd_bus_message_read(msg, "s", &iface);
        if (r < 0 || strcmp(iface, h->source->iface) != 0)
                return 0;
        r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                r = sd_bus_message_read(msg, "s", &key);
                if (r >= 0 && strcmp(key, h->source->property) == 0)
                        r = take_value(h->m, h->source, msg);
                else if (r >= 0)
                        r = sd_bus_message_skip(msg, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(msg);
        }
        if (r < 0)
                log_debug("power: a malformed PropertiesChanged from %s", h->source->name);
        return 0;
}

/* A source comes (ask it) or goes (what it said no longer holds). */
static int on_owner(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *name, *old, *new;
        if (sd_bus_message_read(msg, "sss", &name, &old, &new) < 0 || !m->power)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(sources); i++) {
                if (strcmp(name, sources[i].name) != 0)
                        continue;
                if (*new)
                        ask(&m->power->heard[i]);
                else if (sources[i].battery)
                        take_battery(m, false);
                else
                        take_profile(m, "");
        }
        return 0;
}

int power_bus_start(Manager *m) {
        Power *p = power_of(m);
        int r = p ? 0 : -ENOMEM;
        if (r >= 0)
                r = sd_bus_match_signal_async(m->bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                              "org.freedesktop.DBus", "NameOwnerChanged", on_owner, NULL, m);
        /* From each name's owner only: the bus delivers to such a match
         * only what the current owner of the name sends. */
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(sources); i++) {
                r = sd_bus_match_signal_async(m->bus, NULL, sources[i].name, sources[i].path,
                                              "org.freedesktop.DBus.Properties", "PropertiesChanged", on_changed,
                                              NULL, &p->heard[i]);
                if (r >= 0)
                        ask(&p->heard[i]);
        }
        if (r < 0)
                log_warning_errno(r, "power: cannot follow power-profiles-daemon: %m");
        return 0; /* the classes apply without it */
}

void power_free(Manager *m) {
        free(m->power);
        m->power = NULL;
}

const char *power_describe(const Manager *m, char *buf, size_t size) {
        const Power *p = m->power;
        PowerMode mode = class_table_power();
        if (!p || (!*p->profile && !p->on_battery))
                snprintf(buf, size, "%s (no power-profiles-daemon)", power_mode_to_string(mode));
        else
                snprintf(buf, size, "%s (profile %s%s)", power_mode_to_string(mode),
                         *p->profile ? p->profile : "unknown", p->on_battery ? "; on battery" : "");
        return buf;
}
