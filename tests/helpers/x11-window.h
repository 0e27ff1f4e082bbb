/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A top-level X11 window as apps make one, for the foreground tests and
 * benchmark: titled, mapped, with _NET_WM_PID when wm_pid is true. */
#pragma once

#include <stdbool.h>
#include <xcb/xcb.h>

xcb_window_t x11_window_open(xcb_connection_t *c, const char *title, bool wm_pid);
