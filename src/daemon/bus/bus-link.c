/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/backoff.h"
#include "bus/bus-link.h"
#include "core/bus-protocol.h"
#include "core/clock.h"
#include "bus/manager-dbus.h"
#include "focus/focus.h"
#include "core/log.h"
#include "core/macro.h"

#define SYSTEM_BUS_ADDRESS "unix:path=/run/dbus/system_bus_socket"
/* The longest qosd waits for the bus in one call: at start for its name
 * (so that `qosctl` works the moment qosd says it is ready), later only
 * where a method handler asks the bus for its caller's credentials. */
#define CALL_TIMEOUT_USEC (5 * 1000 * 1000)
/* Reconnects: at once after a calm spell, then from 250 ms up to 30 s
 * apart while the bus keeps refusing or dropping qosd. */
#define RETRY_MIN_USEC (250 * 1000)
#define RETRY_MAX_USEC (30 * 1000 * 1000)
#define RETRY_CALM_USEC (30 * 1000 * 1000)

/* RequestName's answers (the D-Bus specification). */
#define NAME_PRIMARY_OWNER 1
#define NAME_EXISTS 3
#define NAME_ALREADY_OWNER 4

struct BusLink {
        char *address;          /* --bus-address, or NULL: the system bus */
        sd_event_source *retry;
        Backoff backoff;
        sd_bus_slot *name_slot; /* the pending RequestName */
        uint64_t connections;
        bool waiting_said;      /* "waiting for the bus" logged for this outage */
};

static const char *address_of(const BusLink *l) {
        if (l->address)
                return l->address;
        return secure_getenv("DBUS_SYSTEM_BUS_ADDRESS") ?: SYSTEM_BUS_ADDRESS;
}

static void schedule_retry(Manager *m) {
        BusLink *l = m->bus_link;
        uint64_t now = clock_usec(CLOCK_MONOTONIC), wait = backoff_next(&l->backoff, now);
        if (sd_event_source_set_time(l->retry, now + wait) < 0 ||
            sd_event_source_set_enabled(l->retry, SD_EVENT_ONESHOT) < 0)
                log_error("cannot arm the bus reconnect timer; qosd stays off the bus");
}

static void took_name(Manager *m) {
        BusLink *l = m->bus_link;
        l->connections++;
        l->waiting_said = false;
        if (l->connections > 1)
                log_notice("back on the bus %s as %s (connection %" PRIu64 ")", address_of(l), QOS_BUS_NAME,
                           l->connections);
}

static int on_name_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        BusLink *l = m->bus_link;
        uint32_t answer = 0;

        l->name_slot = sd_bus_slot_unref(l->name_slot);
        if (!sd_bus_is_open(sd_bus_message_get_bus(reply)))
                return 0; /* the connection went: on_bus_message reconnects */
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        if (e || sd_bus_message_read(reply, "u", &answer) < 0) {
                log_error("cannot own %s: %s (is the bus policy installed?); trying again later", QOS_BUS_NAME,
                          e && e->message ? e->message : "malformed reply");
                schedule_retry(m);
                return 0;
        }
        if (answer == NAME_EXISTS) {
                /* Two qosd would fight over the same threads. */
                log_error("%s is owned by someone else (another qosd running?); stopping", QOS_BUS_NAME);
                return sd_event_exit(m->event, -EEXIST);
        }
        if (answer == NAME_PRIMARY_OWNER || answer == NAME_ALREADY_OWNER)
                took_name(m);
        return 0;
}

static int on_bus_message(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        if (!sd_bus_message_is_signal(msg, "org.freedesktop.DBus.Local", "Disconnected"))
                return 0;
        log_warning("lost the bus %s; classes keep applying, and qosd takes %s again when the bus is back",
                    address_of(m->bus_link), QOS_BUS_NAME);
        /* The connection is dropped from the timer, not from inside its own dispatch. */
        schedule_retry(m);
        return 1;
}

/* Forget the connection and what hangs on it: who its peers were, a
 * foreground claim that lived as long as its sender did. */
static void drop_bus(Manager *m) {
        BusLink *l = m->bus_link;
        if (!m->bus)
                return;
        l->name_slot = sd_bus_slot_unref(l->name_slot);
        caller_book_free(&m->callers); /* the peers of the old bus */
        focus_bus_lost(m);
        (void) sd_bus_detach_event(m->bus);
        m->bus = sd_bus_close_unref(m->bus);
}

/* A new connection, started (with watch: also while its socket is
 * missing or refuses, sd-bus then connects when it appears), hooked into
 * the loop, the object exported. */
static int connect_bus(Manager *m, bool watch) {
        BusLink *l = m->bus_link;
        sd_bus *bus = NULL;
        int r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        /* As sd_bus_open_system() sets up: per-method access control, for
         * which the bus reports each caller's uid and capabilities. */
        if ((r = sd_bus_set_address(bus, address_of(l))) < 0 || (r = sd_bus_set_bus_client(bus, 1)) < 0 ||
            (r = sd_bus_set_trusted(bus, 0)) < 0 ||
            (r = sd_bus_negotiate_creds(bus, 1, SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID |
                                                        SD_BUS_CREDS_EFFECTIVE_CAPS)) < 0 ||
            (r = sd_bus_set_watch_bind(bus, watch)) < 0 ||
            (r = sd_bus_set_method_call_timeout(bus, CALL_TIMEOUT_USEC)) < 0 ||
            (r = sd_bus_add_filter(bus, NULL, on_bus_message, m)) < 0 || (r = sd_bus_start(bus)) < 0 ||
            (r = sd_bus_attach_event(bus, m->event, SD_EVENT_PRIORITY_NORMAL)) < 0) {
                sd_bus_unref(bus);
                return r;
        }
        m->bus = bus;
        r = dbus_manager_register(m);
        if (r < 0)
                drop_bus(m);
        return r;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        BusLink *l = m->bus_link;
        int r;

        drop_bus(m);
        r = connect_bus(m, true);
        if (r >= 0)
                r = sd_bus_request_name_async(m->bus, &l->name_slot, QOS_BUS_NAME, 0, on_name_reply, m);
        if (r < 0) {
                log_full_errno(l->waiting_said ? LOG_DEBUG : LOG_WARNING, r,
                               "cannot connect to the bus %s: %m; trying again", address_of(l));
                l->waiting_said = true;
                drop_bus(m);
                schedule_retry(m);
                return 0;
        }
        if (!l->waiting_said)
                log_info("waiting for the bus %s to take %s", address_of(l), QOS_BUS_NAME);
        l->waiting_said = true;
        return 0;
}

int bus_link_start(Manager *m, const char *address) {
        BusLink *l = calloc(1, sizeof *l);
        int r;

        if (!l)
                return -ENOMEM;
        m->bus_link = l;
        l->backoff = (Backoff) BACKOFF_INIT(RETRY_MIN_USEC, RETRY_MAX_USEC, RETRY_CALM_USEC);
        if (address && !(l->address = strdup(address)))
                return -ENOMEM;
        r = sd_event_add_time(m->event, &l->retry, CLOCK_MONOTONIC, 0, 0, on_retry, m);
        if (r >= 0)
                r = sd_event_source_set_enabled(l->retry, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "cannot set up the bus reconnect timer: %m");

        r = connect_bus(m, false);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                r = sd_bus_request_name(m->bus, QOS_BUS_NAME, 0);
                if (r >= 0) {
                        took_name(m);
                        return 0;
                }
                if (r == -EEXIST)
                        return log_error_errno(r, "cannot own %s: another qosd is running", QOS_BUS_NAME);
                log_warning_errno(r, "cannot own %s on the bus %s: %m; classes apply without it, trying again",
                                  QOS_BUS_NAME, address_of(l));
                drop_bus(m);
        } else
                log_warning_errno(r, "no bus at %s (%m): classes apply without it; qosd takes %s when the bus "
                                  "appears", address_of(l), QOS_BUS_NAME);
        schedule_retry(m);
        return 0;
}

void bus_link_stop(Manager *m) {
        BusLink *l = m->bus_link;
        if (l)
                l->name_slot = sd_bus_slot_unref(l->name_slot);
        dbus_manager_stop(m);
        if (!l)
                return;
        sd_event_source_disable_unref(l->retry);
        free(l->address);
        free(l);
        m->bus_link = NULL;
}

uint64_t bus_link_connections(const Manager *m) {
        return m->bus_link ? m->bus_link->connections : 0;
}
