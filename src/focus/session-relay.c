/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <systemd/sd-bus.h>

#include "focus-source.h"
#include "log.h"
#include "session-relay.h"

struct SessionRelay {
        sd_bus *bus;
        sd_bus_slot *slot;
        FocusReport *report;
};

static int method_set_focus(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        SessionRelay *s = userdata;
        const char *source;
        int32_t pid;
        int r = sd_bus_message_read(msg, "si", &source, &pid);
        if (r < 0)
                return r;
        if (!focus_source_name_valid(source))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "A source name is 1 to %d of [a-z0-9-].", FOCUS_SOURCE_MAX - 1);
        if (pid < 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "A PID is positive, or 0 for none.");
        log_debug("%s: focus on process %d", source, (int) pid);
        focus_report(s->report, source, pid);
        return sd_bus_reply_method_return(msg, "");
}

static const sd_bus_vtable relay_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_NAMES("SetFocus", "si", SD_BUS_PARAM(source) SD_BUS_PARAM(pid), "", ,
                                 method_set_focus, 0),
        SD_BUS_VTABLE_END,
};

int session_relay_start(sd_event *event, FocusReport *report, SessionRelay **ret) {
        SessionRelay *s = calloc(1, sizeof *s);
        int r;
        if (!s)
                return -ENOMEM;
        s->report = report;
        r = sd_bus_open_user(&s->bus);
        if (r >= 0)
                r = sd_bus_add_object_vtable(s->bus, &s->slot, RELAY_BUS_PATH, RELAY_BUS_INTERFACE, relay_vtable, s);
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
