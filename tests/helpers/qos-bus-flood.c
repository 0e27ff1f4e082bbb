/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A flood of qosd's read-only calls, for test-dbus-limits.sh: CONNECTIONS
 * connections to the system bus ($DBUS_SYSTEM_BUS_ADDRESS), each sending
 * calls back to back with WINDOW of them unanswered at any time (below
 * dbus-daemon's default of 128 pending replies per connection, so that
 * every call reaches qosd), until SIGTERM. Then it waits for the answers
 * still due and prints one line:
 *
 *   ok N limited N other N [first-other-error]
 *   limited: MESSAGE-OF-THE-FIRST-RATELIMITED-ERROR
 *
 *   qos-bus-flood CONNECTIONS explain TID
 *   qos-bus-flood CONNECTIONS list-all
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-protocol.h"

#define WINDOW 32
#define MAX_CONNECTIONS 16

typedef struct Flood Flood;

typedef struct Conn {
        Flood *flood;
        sd_bus *bus;
} Conn;

struct Flood {
        sd_event *event;
        int tid;                /* explain TID; 0: ListTasks(true) */
        size_t n_conns;
        long pending;
        bool stopping;
        long ok, limited, other;
        char first_other[256], first_limited[256];
};

static int send_one(Conn *c);

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *unused) {
        Conn *c = userdata;
        Flood *f = c->flood;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        if (!e)
                f->ok++;
        else if (sd_bus_error_has_name(e, QOS_BUS_ERROR_RATE_LIMITED)) {
                if (!f->limited)
                        snprintf(f->first_limited, sizeof f->first_limited, "%s", e->message ?: "");
                f->limited++;
        }
        else {
                if (!f->other)
                        snprintf(f->first_other, sizeof f->first_other, "%s: %s", e->name, e->message ?: "");
                f->other++;
        }
        f->pending--;
        if (!f->stopping) {
                int r = send_one(c);
                if (r < 0)
                        return sd_event_exit(f->event, r);
        } else if (f->pending == 0)
                return sd_event_exit(f->event, 0);
        return 0;
}

static int send_one(Conn *c) {
        Flood *f = c->flood;
        int r;
        if (f->tid > 0)
                r = sd_bus_call_method_async(c->bus, NULL, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, "Explain",
                                             on_reply, c, "i", (int32_t) f->tid);
        else
                r = sd_bus_call_method_async(c->bus, NULL, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, "ListTasks",
                                             on_reply, c, "b", 1);
        if (r >= 0)
                f->pending++;
        return r;
}

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Flood *f = userdata;
        f->stopping = true;
        return f->pending == 0 ? sd_event_exit(f->event, 0) : 0;
}

int main(int argc, char **argv) {
        Conn conns[MAX_CONNECTIONS] = {};
        Flood f = {};
        int r;

        sigset_t term;

        if (argc < 3 || (strcmp(argv[2], "explain") == 0 ? argc != 4 : strcmp(argv[2], "list-all") != 0 || argc != 3)) {
                fprintf(stderr, "usage: qos-bus-flood CONNECTIONS explain TID | list-all\n");
                return 2;
        }
        f.n_conns = strtoul(argv[1], NULL, 10);
        f.tid = argc == 4 ? atoi(argv[3]) : 0;
        if (f.n_conns < 1 || f.n_conns > MAX_CONNECTIONS || (argc == 4 && f.tid <= 0)) {
                fprintf(stderr, "qos-bus-flood: 1..%d connections, a TID > 0\n", MAX_CONNECTIONS);
                return 2;
        }
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        sigprocmask(SIG_BLOCK, &term, NULL);
        r = sd_event_default(&f.event);
        if (r >= 0)
                r = sd_event_add_signal(f.event, NULL, SIGTERM, on_term, &f);
        for (size_t i = 0; r >= 0 && i < f.n_conns; i++) {
                conns[i].flood = &f;
                r = sd_bus_open_system(&conns[i].bus);
                if (r >= 0)
                        r = sd_bus_attach_event(conns[i].bus, f.event, 0);
                for (long k = 0; r >= 0 && k < WINDOW; k++)
                        r = send_one(&conns[i]);
        }
        if (r >= 0)
                r = sd_event_loop(f.event);
        if (r < 0) {
                fprintf(stderr, "qos-bus-flood: %s\n", strerror(-r));
                return 1;
        }
        printf("ok %ld limited %ld other %ld%s%s\nlimited: %s\n", f.ok, f.limited, f.other, f.other ? " " : "",
               f.first_other, f.first_limited);
        for (size_t i = 0; i < f.n_conns; i++)
                sd_bus_flush_close_unref(conns[i].bus);
        sd_event_unref(f.event);
        return 0;
}
