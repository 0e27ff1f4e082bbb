/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The active window of an X11 display, as an EWMH window manager publishes
 * it (_NET_ACTIVE_WINDOW on the root window), and the process behind it:
 * the X server's own record of the client's PID (X-Resource, taken from
 * the socket's peer credentials, which a client cannot forge), else the
 * window's _NET_WM_PID (what the client says). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>
#include <sys/types.h>

typedef struct X11Active X11Active;

/* Connect to display (NULL: $DISPLAY) and call changed(pid, userdata) with
 * the active window's process now and after every change (0: no window,
 * or its process cannot be told). The event loop exits with -ECONNRESET
 * when the X server goes away. */
int x11_active_start(sd_event *event, const char *display, void (*changed)(pid_t pid, void *userdata),
                     void *userdata, X11Active **ret);
void x11_active_free(X11Active *x);

/* The active window's process as last seen. */
pid_t x11_active_pid(const X11Active *x);
