/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <xcb/res.h>
#include <xcb/xcb.h>
#include <xcb/xcb_ewmh.h>

#include "core/log.h"
#include "qos-focus/x11-active.h"

struct X11Active {
        xcb_connection_t *conn;
        xcb_ewmh_connection_t ewmh;
        bool ewmh_ready;
        bool has_res;
        xcb_window_t root;
        pid_t pid;
        sd_event_source *source;
        void (*changed)(pid_t pid, void *userdata);
        void *userdata;
};

static pid_t pid_from_server(X11Active *x, xcb_window_t w) {
        xcb_res_client_id_spec_t spec = { .client = w, .mask = XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID };
        xcb_res_query_client_ids_reply_t *reply =
                xcb_res_query_client_ids_reply(x->conn, xcb_res_query_client_ids(x->conn, 1, &spec), NULL);
        pid_t pid = 0;
        if (!reply)
                return 0;
        for (xcb_res_client_id_value_iterator_t it = xcb_res_query_client_ids_ids_iterator(reply); it.rem;
             xcb_res_client_id_value_next(&it))
                if ((it.data->spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID) &&
                    xcb_res_client_id_value_value_length(it.data) >= 1) {
                        pid = (pid_t) *xcb_res_client_id_value_value(it.data);
                        break;
                }
        free(reply);
        return pid;
}

static pid_t pid_from_window(X11Active *x, xcb_window_t w) {
        uint32_t pid;
        if (!xcb_ewmh_get_wm_pid_reply(&x->ewmh, xcb_ewmh_get_wm_pid(&x->ewmh, w), &pid, NULL))
                return 0;
        return (pid_t) pid;
}

static pid_t active_pid(X11Active *x) {
        xcb_window_t w = XCB_NONE;
        if (!xcb_ewmh_get_active_window_reply(&x->ewmh, xcb_ewmh_get_active_window(&x->ewmh, 0), &w, NULL) ||
            w == XCB_NONE)
                return 0;
        pid_t pid = x->has_res ? pid_from_server(x, w) : 0;
        return pid > 0 ? pid : pid_from_window(x, w);
}

static void update(X11Active *x) {
        pid_t pid = active_pid(x);
        log_debug("active window's process: %d", (int) pid);
        x->pid = pid;
        x->changed(pid, x->userdata);
}

static int on_x_events(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        X11Active *x = userdata;
        xcb_generic_event_t *ev;
        /* Replies read while updating may queue events: drain until empty. */
        while ((ev = xcb_poll_for_event(x->conn))) {
                bool active = (ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY &&
                              ((xcb_property_notify_event_t *) ev)->atom == x->ewmh._NET_ACTIVE_WINDOW;
                free(ev);
                if (active)
                        update(x);
        }
        if (xcb_connection_has_error(x->conn)) {
                log_info("the X server closed the connection");
                return sd_event_exit(sd_event_source_get_event(es), -ECONNRESET);
        }
        return 0;
}

int x11_active_start(sd_event *event, const char *display, void (*changed)(pid_t pid, void *userdata),
                     void *userdata, X11Active **ret) {
        X11Active *x = calloc(1, sizeof *x);
        int screen_no = 0, r;
        if (!x)
                return -ENOMEM;
        x->changed = changed;
        x->userdata = userdata;
        x->conn = xcb_connect(display, &screen_no);
        if (xcb_connection_has_error(x->conn)) {
                x11_active_free(x);
                return log_error_errno(-ECONNREFUSED, "cannot connect to the X display %s", display ?: "$DISPLAY");
        }
        if (!xcb_ewmh_init_atoms_replies(&x->ewmh, xcb_ewmh_init_atoms(x->conn, &x->ewmh), NULL)) {
                x11_active_free(x);
                return log_error_errno(-EIO, "cannot read the EWMH atoms");
        }
        x->ewmh_ready = true;
        const xcb_query_extension_reply_t *res = xcb_get_extension_data(x->conn, &xcb_res_id);
        x->has_res = res && res->present;
        if (!x->has_res)
                log_info("the X server lacks X-Resource: the processes of windows come from _NET_WM_PID");
        x->root = x->ewmh.screens[screen_no]->root;
        uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
        xcb_change_window_attributes(x->conn, x->root, XCB_CW_EVENT_MASK, &mask);
        xcb_flush(x->conn);
        r = sd_event_add_io(event, &x->source, xcb_get_file_descriptor(x->conn), EPOLLIN, on_x_events, x);
        if (r < 0) {
                x11_active_free(x);
                return log_error_errno(r, "cannot watch the X connection: %m");
        }
        *ret = x;
        update(x);
        /* Whatever the first replies queued. */
        return on_x_events(x->source, -1, 0, x);
}

void x11_active_free(X11Active *x) {
        if (!x)
                return;
        sd_event_source_disable_unref(x->source);
        if (x->ewmh_ready)
                xcb_ewmh_connection_wipe(&x->ewmh);
        xcb_disconnect(x->conn);
        free(x);
}

pid_t x11_active_pid(const X11Active *x) {
        return x->pid;
}
