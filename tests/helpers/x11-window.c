/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "x11-window.h"

xcb_window_t x11_window_open(xcb_connection_t *c, const char *title, bool wm_pid) {
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
        return w;
}
