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
        xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
        xcb_window_t w = xcb_generate_id(c);
        uint32_t events = XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_FOCUS_CHANGE;
        xcb_create_window(c, XCB_COPY_FROM_PARENT, w, s->root, 0, 0, 200, 100, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                          s->root_visual, XCB_CW_EVENT_MASK, &events);
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                            (uint32_t) strlen(title), title);
        if (wm_pid) {
                xcb_intern_atom_reply_t *a =
                        xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, strlen("_NET_WM_PID"), "_NET_WM_PID"), NULL);
                uint32_t pid = (uint32_t) getpid();
                if (a)
                        xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, a->atom, XCB_ATOM_CARDINAL, 32, 1, &pid);
                free(a);
        }
        xcb_map_window(c, w);
        xcb_flush(c);
        if (ask) {
                int r = qos_self_set_class(QOS_CLASS_USER_INTERACTIVE, 0);
                printf("asked %d %s\n", r, qos_class_to_string(qos_class_self()));
        }
        printf("ready %u %d\n", (unsigned) w, (int) getpid());
        fflush(stdout);
        xcb_generic_event_t *ev;
        while ((ev = xcb_wait_for_event(c)))
                free(ev);
        xcb_disconnect(c);
        return 0;
}
