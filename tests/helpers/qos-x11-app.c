/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A real X11 client for the foreground tests: one top-level window titled
 * argv[1], with _NET_WM_PID unless --no-wm-pid (then only the X server's
 * own record names its process). With --ask it asks qosd, through libqos,
 * for user-interactive on its main thread and prints what it got.
 * Prints "ready WINDOW PID" once mapped, then serves X events until killed. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include <qos/qos.h>

#include "x11-window.h"

int main(int argc, char **argv) {
        bool wm_pid = true, ask = false;
        const char *title = NULL;
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--no-wm-pid") == 0)
                        wm_pid = false;
                else if (strcmp(argv[i], "--ask") == 0)
                        ask = true;
                else
                        title = argv[i];
        }
        if (!title) {
                fprintf(stderr, "usage: qos-x11-app [--no-wm-pid] [--ask] TITLE\n");
                return 2;
        }
        xcb_connection_t *c = xcb_connect(NULL, NULL);
        if (xcb_connection_has_error(c)) {
                fprintf(stderr, "qos-x11-app: cannot connect to $DISPLAY\n");
                return 1;
        }
        /* Ask before the window exists: a window manager may focus a new
         * window at once, and a request made after that is granted, so
         * the test could not tell an unfocused app's request from it. */
        if (ask) {
                int r = qos_self_set_class(QOS_CLASS_USER_INTERACTIVE, 0);
                printf("asked %d %s\n", r, qos_class_to_string(qos_class_self()));
        }
        xcb_window_t w = x11_window_open(c, title, wm_pid);
        printf("ready %u %d\n", (unsigned) w, (int) getpid());
        fflush(stdout);
        xcb_generic_event_t *ev;
        while ((ev = xcb_wait_for_event(c)))
                free(ev);
        xcb_disconnect(c);
        return 0;
}
