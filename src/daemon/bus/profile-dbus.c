/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "bus/profile-dbus.h"
#include "core/bus-protocol.h"
#include "core/macro.h"
#include "core/sched-profile.h"
#include "core/utf8-escape.h"
#include "state/query-admit.h"

int profile_method_set(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *name;
        int r = caller_require_privileged(&m->callers, msg, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return r;
        _cleanup_free_ char *report = NULL;
        r = sched_profile_switch(&m->profile, m->sys_root, name, &report);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Unknown profile '%s' (valid: %s).", name, sched_profile_names());
        /* The report quotes what the kernel's files hold. */
        _cleanup_free_ char *text = utf8_escape(report ?: (r < 0 ? strerror(-r) : ""));
        if (!text)
                return -ENOMEM;
        if (r < 0)
                return sd_bus_error_setf(error, QOS_BUS_ERROR_PROFILE, "%s", text);
        return sd_bus_reply_method_return(msg, "s", text);
}

int profile_method_get(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        sd_bus_message *reply = NULL;
        ProfileKnobState *st = NULL;
        Caller caller;
        size_t n = 0;
        int r = query_admit(m, msg, QUERY_GET_PROFILE, &caller, error);
        if (r < 0)
                return r;
        r = sched_profile_describe(m->profile, m->sys_root, &st, &n);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "s", sched_profile_current(m->profile));
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sss)");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                _cleanup_free_ char *path = utf8_escape(st[i].path), *value = utf8_escape(st[i].value),
                                    *status = utf8_escape(st[i].status);
                r = path && value && status ? sd_bus_message_append(reply, "(sss)", path, value, status) : -ENOMEM;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        profile_knob_states_free(st, n);
        return r;
}
