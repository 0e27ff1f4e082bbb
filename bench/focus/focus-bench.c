/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The foreground figure's probes (run-focus-bench.sh drives them):
 *
 *   app TITLE SECONDS OUT   an X11 app: one window, its main thread asks
 *                           qosd for user-interactive (libqos), then draws a
 *                           60 Hz frame loop of 3 ms work; writes one line
 *                           per frame, "NICE FRAME_US" (its nice at that
 *                           frame: -20 granted, 0 held), to OUT
 *   switch-x11 N WIN PID WIN PID
 *                           asks the window manager to activate the two
 *                           windows in turn (_NET_ACTIVE_WINDOW, as a
 *                           pager does) and times each until the newly
 *                           focused process's main thread has nice -20
 *   switch-bus N PID PID    the same through SetFocus on the system bus
 *   switch-relay N PID PID  the same through org.qosd.Focus1 (the KWin path)
 *
 * The switches print "p50 p99 max" in microseconds. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include <qos/qos.h>

#include "x11-window.h"

static uint64_t now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static int nice_of(pid_t tid) {
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", (int) tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return 99;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        char *p = strrchr(buf, ')');
        int field = 2, nice = 99;
        for (; p && *p; p++)
                if (*p == ' ' && ++field == 19) {
                        nice = atoi(p + 1);
                        break;
                }
        return nice;
}

static void spin_us(uint64_t us) {
        uint64_t end = now_us() + us;
        while (now_us() < end)
                ;
}

static volatile sig_atomic_t stop;
static void on_term(int sig) {
        stop = 1;
}

static int run_app(const char *title, int seconds, const char *out) {
        xcb_connection_t *c = xcb_connect(NULL, NULL);
        if (xcb_connection_has_error(c))
                return fprintf(stderr, "app: no X display\n"), 1;
        xcb_window_t w = x11_window_open(c, title, true);
        int r = qos_self_set_class(QOS_CLASS_USER_INTERACTIVE, 0);
        printf("ready %u %d %d\n", (unsigned) w, (int) getpid(), r);
        fflush(stdout);

        size_t cap = (size_t) seconds * 61 + 16, n = 0;
        int *nices = calloc(cap, sizeof *nices);
        uint32_t *frames = calloc(cap, sizeof *frames);
        if (!nices || !frames)
                return 1;
        signal(SIGTERM, on_term);
        uint64_t period = 1000000 / 60, next = now_us() + period;
        while (!stop && n < cap) {
                struct timespec ts = { .tv_sec = (time_t) (next / 1000000), .tv_nsec = (long) (next % 1000000) * 1000 };
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
                spin_us(3000);
                frames[n] = (uint32_t) (now_us() - next);
                nices[n++] = nice_of(getpid());
                xcb_generic_event_t *ev;
                while ((ev = xcb_poll_for_event(c)))
                        free(ev);
                next += period;
                uint64_t t = now_us();
                if (next < t)
                        next = t + (period - (t - next) % period); /* skip missed frames */
        }
        FILE *f = fopen(out, "we");
        if (!f)
                return 1;
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%d %u\n", nices[i], frames[i]);
        fclose(f);
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return (x > y) - (x < y);
}

/* Wait until pid's main thread has nice -20; the time since t0, or 0 on a
 * 2 s timeout (counted as a miss). */
static uint64_t wait_raised(pid_t pid, uint64_t t0) {
        while (now_us() - t0 < 2000000) {
                if (nice_of(pid) == -20)
                        return now_us() - t0;
                usleep(100);
        }
        return 0;
}

typedef int (*SwitchFn)(void *ctx, int which);

static int report(uint64_t *lat, int n, int misses) {
        qsort(lat, (size_t) n, sizeof *lat, cmp_u64);
        if (n == 0)
                return fprintf(stderr, "no switch took effect\n"), 1;
        printf("%llu %llu %llu %d\n", (unsigned long long) lat[n / 2], (unsigned long long) lat[(n * 99) / 100],
               (unsigned long long) lat[n - 1], misses);
        return 0;
}

static int run_switches(int n, const pid_t pids[2], SwitchFn fn, void *ctx) {
        uint64_t *lat = calloc((size_t) n, sizeof *lat);
        int k = 0, misses = 0;
        if (!lat)
                return 1;
        for (int i = 0; i < n; i++) {
                int which = i % 2;
                uint64_t t0 = now_us();
                if (fn(ctx, which) < 0)
                        return fprintf(stderr, "switch %d failed\n", i), 1;
                uint64_t l = wait_raised(pids[which], t0);
                if (l)
                        lat[k++] = l;
                else
                        misses++;
                usleep(20000);
        }
        return report(lat, k, misses);
}

typedef struct X11Ctx {
        xcb_connection_t *c;
        xcb_window_t root, wins[2];
        xcb_atom_t active;
} X11Ctx;

static int x11_switch(void *ctx, int which) {
        X11Ctx *x = ctx;
        xcb_client_message_event_t ev = {
                .response_type = XCB_CLIENT_MESSAGE, .format = 32, .window = x->wins[which], .type = x->active,
                .data.data32 = { 2 /* a pager */, XCB_CURRENT_TIME, 0 },
        };
        xcb_send_event(x->c, 0, x->root, XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY,
                       (const char *) &ev);
        return xcb_flush(x->c) > 0 ? 0 : -EIO;
}

typedef struct BusCtx {
        sd_bus *bus;
        const char *dest, *path, *iface;
        pid_t pids[2];
} BusCtx;

static int bus_switch(void *ctx, int which) {
        BusCtx *b = ctx;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd_bus_call_method(b->bus, b->dest, b->path, b->iface, "SetFocus", &error, NULL, "si", "bench",
                                   (int32_t) b->pids[which]);
        if (r < 0)
                fprintf(stderr, "SetFocus: %s\n", error.message ?: strerror(-r));
        sd_bus_error_free(&error);
        return r;
}

int main(int argc, char **argv) {
        if (argc == 5 && strcmp(argv[1], "app") == 0)
                return run_app(argv[2], atoi(argv[3]), argv[4]);
        if (argc == 7 && strcmp(argv[1], "switch-x11") == 0) {
                X11Ctx x = {};
                pid_t pids[2] = { atoi(argv[4]), atoi(argv[6]) };
                x.c = xcb_connect(NULL, NULL);
                if (xcb_connection_has_error(x.c))
                        return fprintf(stderr, "no X display\n"), 1;
                x.root = xcb_setup_roots_iterator(xcb_get_setup(x.c)).data->root;
                x.wins[0] = (xcb_window_t) strtoul(argv[3], NULL, 0);
                x.wins[1] = (xcb_window_t) strtoul(argv[5], NULL, 0);
                xcb_intern_atom_reply_t *a = xcb_intern_atom_reply(
                        x.c, xcb_intern_atom(x.c, 0, strlen("_NET_ACTIVE_WINDOW"), "_NET_ACTIVE_WINDOW"), NULL);
                if (!a)
                        return 1;
                x.active = a->atom;
                free(a);
                return run_switches(atoi(argv[2]), pids, x11_switch, &x);
        }
        if (argc == 5 && (strcmp(argv[1], "switch-bus") == 0 || strcmp(argv[1], "switch-relay") == 0)) {
                bool relay = strcmp(argv[1], "switch-relay") == 0;
                BusCtx b = { .pids = { atoi(argv[3]), atoi(argv[4]) } };
                int r = relay ? sd_bus_open_user(&b.bus) : sd_bus_open_system(&b.bus);
                if (r < 0)
                        return fprintf(stderr, "no bus: %s\n", strerror(-r)), 1;
                b.dest = relay ? "org.qosd.Focus1" : "org.qosd.QoS1";
                b.path = relay ? "/org/qosd/Focus1" : "/org/qosd/QoS1";
                b.iface = relay ? "org.qosd.Focus1" : "org.qosd.QoS1.Manager";
                return run_switches(atoi(argv[2]), b.pids, bus_switch, &b);
        }
        fprintf(stderr, "usage: see the comment at the top of bench/focus/focus-bench.c\n");
        return 2;
}
