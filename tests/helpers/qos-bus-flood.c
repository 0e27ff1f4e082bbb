/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A flood of qosd's read-only calls, for test-dbus-limits.sh and
 * test-dbus-connection-flood.sh: CONNECTIONS connections to the system bus
 * ($DBUS_SYSTEM_BUS_ADDRESS), each sending calls back to back with WINDOW
 * of them unanswered at any time (below dbus-daemon's default of 128
 * pending replies per connection, so that every call reaches qosd), until
 * SIGTERM. With --churn each connection sends one call and is closed when
 * the answer comes, and a new one takes its place: every call comes from a
 * sender qosd has not seen. Then it waits for the answers still due and
 * prints one line (and the first RateLimited error's message):
 *
 *   ok N limited N other N connections N [first-other-error]
 *   limited: MESSAGE-OF-THE-FIRST-RATELIMITED-ERROR
 *
 *   qos-bus-flood [--churn] CONNECTIONS explain TID | list-all | get-profile | get-all
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "core/bus-protocol.h"

#define WINDOW 32
#define MAX_CONNECTIONS 1024

typedef struct Flood Flood;

typedef enum Method { EXPLAIN, LIST_ALL, GET_PROFILE, GET_ALL } Method;

typedef struct Conn {
        Flood *flood;
        sd_bus *bus;
} Conn;

struct Flood {
        sd_event *event;
        Method method;
        int tid;                /* explain TID */
        bool churn;             /* one call per connection */
        size_t n_conns;
        long connections;       /* opened in all */
        long pending;
        bool stopping;
        long ok, limited, other;
        char first_other[256], first_limited[256];
};

static int send_one(Conn *c);

static int conn_open(Conn *c) {
        int r = sd_bus_open_system(&c->bus);
        if (r >= 0)
                r = sd_bus_attach_event(c->bus, c->flood->event, 0);
        if (r >= 0)
                c->flood->connections++;
        return r;
}

static void conn_close(Conn *c) {
        sd_bus_detach_event(c->bus);
        c->bus = sd_bus_flush_close_unref(c->bus);
}

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
        if (!f->stopping && c->bus) {
                int r = 0;
                if (f->churn) {
                        conn_close(c);
                        r = conn_open(c);
                }
                if (r >= 0)
                        r = send_one(c);
                if (r < 0) {
                        /* The bus refused or dropped this connection (its
                         * limit per user, or it stopped): the others go on. */
                        if (!f->other)
                                snprintf(f->first_other, sizeof f->first_other, "cannot call: %s", strerror(-r));
                        f->other++;
                }
        }
        if (f->stopping && f->pending == 0)
                return sd_event_exit(f->event, 0);
        return 0;
}

static int send_one(Conn *c) {
        Flood *f = c->flood;
        int r;
        switch (f->method) {
        case EXPLAIN:
                r = sd_bus_call_method_async(c->bus, NULL, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, "Explain",
                                             on_reply, c, "i", (int32_t) f->tid);
                break;
        case LIST_ALL:
                r = sd_bus_call_method_async(c->bus, NULL, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, "ListTasks",
                                             on_reply, c, "b", 1);
                break;
        case GET_PROFILE:
                r = sd_bus_call_method_async(c->bus, NULL, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                             "GetProfile", on_reply, c, "");
                break;
        default:
                r = sd_bus_call_method_async(c->bus, NULL, QOS_BUS_NAME, QOS_BUS_PATH,
                                             "org.freedesktop.DBus.Properties", "GetAll", on_reply, c, "s",
                                             QOS_BUS_INTERFACE);
        }
        if (r >= 0)
                f->pending++;
        return r;
}

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Flood *f = userdata;
        f->stopping = true;
        return f->pending == 0 ? sd_event_exit(f->event, 0) : 0;
}

static int parse_method(Flood *f, int argc, char **argv) {
        static const char *const names[] = { [EXPLAIN] = "explain", [LIST_ALL] = "list-all",
                                             [GET_PROFILE] = "get-profile", [GET_ALL] = "get-all" };
        if (argc < 1)
                return -EINVAL;
        for (Method m = 0; m <= GET_ALL; m++)
                if (strcmp(argv[0], names[m]) == 0) {
                        f->method = m;
                        if (m != EXPLAIN)
                                return argc == 1 ? 0 : -EINVAL;
                        f->tid = argc == 2 ? atoi(argv[1]) : 0;
                        return f->tid > 0 ? 0 : -EINVAL;
                }
        return -EINVAL;
}

int main(int argc, char **argv) {
        static Conn conns[MAX_CONNECTIONS];
        Flood f = {};
        int r, a = 1;
        sigset_t term;

        if (argc > 1 && strcmp(argv[1], "--churn") == 0) {
                f.churn = true;
                a++;
        }
        f.n_conns = argc > a ? strtoul(argv[a], NULL, 10) : 0;
        if (f.n_conns < 1 || f.n_conns > MAX_CONNECTIONS || parse_method(&f, argc - a - 1, argv + a + 1) < 0) {
                fprintf(stderr, "usage: qos-bus-flood [--churn] 1..%d explain TID | list-all | get-profile | "
                                "get-all\n", MAX_CONNECTIONS);
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
                r = conn_open(&conns[i]);
                for (long k = 0; r >= 0 && k < (f.churn ? 1 : WINDOW); k++)
                        r = send_one(&conns[i]);
        }
        if (r >= 0)
                r = sd_event_loop(f.event);
        if (r < 0) {
                fprintf(stderr, "qos-bus-flood: %s\n", strerror(-r));
                return 1;
        }
        printf("ok %ld limited %ld other %ld connections %ld%s%s\nlimited: %s\n", f.ok, f.limited, f.other,
               f.connections, f.other ? " " : "", f.first_other, f.first_limited);
        for (size_t i = 0; i < f.n_conns; i++)
                if (conns[i].bus)
                        conn_close(&conns[i]);
        sd_event_unref(f.event);
        return 0;
}
