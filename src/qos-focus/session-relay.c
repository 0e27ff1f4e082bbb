/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "core/focus-source.h"
#include "core/log.h"
#include "qos-focus/session-relay.h"

struct SessionRelay {
        sd_bus *bus;
        sd_bus_slot *slot;
        FocusReport *report;
};

/* The PID as the caller typed it: KWin's callDBus sends a JavaScript
 * number as it converts it (int32, int64 or double, by Qt version), so
 * every integer type is taken, and a double only if it is whole. */
static int read_pid(sd_bus_message *msg, int64_t *ret) {
        const char *sig = sd_bus_message_get_signature(msg, true);
        union { int32_t i; uint32_t u; int64_t x; uint64_t t; double d; } v;
        int r;
        if (!sig || strlen(sig) != 2 || sig[0] != 's')
                return -EINVAL;
        r = sd_bus_message_skip(msg, "s");
        if (r < 0)
                return r;
        switch (sig[1]) {
        case 'i': r = sd_bus_message_read(msg, "i", &v.i); *ret = v.i; break;
        case 'u': r = sd_bus_message_read(msg, "u", &v.u); *ret = v.u; break;
        case 'x': r = sd_bus_message_read(msg, "x", &v.x); *ret = v.x; break;
        case 't': r = sd_bus_message_read(msg, "t", &v.t); *ret = v.t > INT32_MAX ? -1 : (int64_t) v.t; break;
        case 'd':
                r = sd_bus_message_read(msg, "d", &v.d);
                *ret = v.d >= 0 && v.d <= INT32_MAX && v.d == (double) (int64_t) v.d ? (int64_t) v.d : -1;
                break;
        default:
                return -EINVAL;
        }
        return r;
}

static int on_message(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        SessionRelay *s = userdata;
        const char *source;
        int64_t pid = -1;
        if (!sd_bus_message_is_method_call(msg, RELAY_BUS_INTERFACE, "SetFocus"))
                return 0; /* sd-bus answers the rest (Peer, UnknownMethod) */
        int r = sd_bus_message_read(msg, "s", &source);
        if (r >= 0)
                r = sd_bus_message_rewind(msg, true);
        if (r >= 0)
                r = read_pid(msg, &pid);
        if (r < 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "SetFocus takes a source name and a PID (an integer).");
        if (!focus_source_name_valid(source))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "A source name is 1 to %d of [a-z0-9-].", FOCUS_SOURCE_MAX - 1);
        if (pid < 0 || pid > INT32_MAX)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "A PID is positive, or 0 for none.");
        log_debug("%s: focus on process %d", source, (int) pid);
        focus_report(s->report, source, (pid_t) pid);
        return sd_bus_reply_method_return(msg, "");
}

int session_relay_start(sd_event *event, FocusReport *report, SessionRelay **ret) {
        SessionRelay *s = calloc(1, sizeof *s);
        int r;
        if (!s)
                return -ENOMEM;
        s->report = report;
        r = sd_bus_open_user(&s->bus);
        if (r >= 0)
                r = sd_bus_add_object(s->bus, &s->slot, RELAY_BUS_PATH, on_message, s);
        if (r >= 0)
                r = sd_bus_request_name(s->bus, RELAY_BUS_NAME, 0);
        if (r >= 0)
                r = sd_bus_set_exit_on_disconnect(s->bus, true);
        if (r >= 0)
                r = sd_bus_attach_event(s->bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0) {
                session_relay_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

void session_relay_free(SessionRelay *s) {
        if (!s)
                return;
        sd_bus_slot_unref(s->slot);
        sd_bus_flush_close_unref(s->bus);
        free(s);
}
