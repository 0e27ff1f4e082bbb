/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "core/bus-protocol.h"
#include "core/macro.h"
#include "reload/reload-dbus.h"
#include "reload/reload.h"

int reload_method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r = caller_require_privileged(&m->callers, msg, error);
        if (r < 0)
                return r;
        r = reload_rules(m, false);
        if (r < 0 && r != -EINVAL)
                return sd_bus_error_set_errnof(error, r, "Reload failed: %s", strerror(-r));
        /* Only root may reload: the whole message, every user's files too
         * (escaped for the bus already: reload-status.h). */
        _cleanup_free_ char *message = reload_status_message(&m->last_reload, 0);
        if (!message)
                return -ENOMEM;
        if (r == -EINVAL)
                return sd_bus_error_setf(error, QOS_BUS_ERROR_INVALID_CONFIG,
                                         "Errors in the rules; the previous rules stay in force:\n%s", message);
        return sd_bus_reply_method_return(msg, "s", message);
}
