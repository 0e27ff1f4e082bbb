/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "broker/broker-dbus.h"
#include "broker/broker.h"
#include "caller/bus-args.h"
#include "caller/caller-tid.h"
#include "core/bus-protocol.h"
#include "core/macro.h"

int broker_method_set_thread_class(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        SetThreadClassArgs args;
        BrokerAnswer answer;
        Caller caller;
        int r;

        r = bus_args_read_set_thread_class(msg, &args, error);
        if (r < 0)
                return r;
        r = caller_identify_or_refuse(&m->callers, msg, &caller, error);
        if (r < 0)
                return r;
        /* Before any work on the target: a flood costs a hash lookup each. */
        if (!broker_admit(m, &caller))
                return sd_bus_error_setf(error, QOS_BUS_ERROR_RATE_LIMITED,
                                         "Too many requests from process %d; try again later.", (int) caller.pid);
        /* From a sandbox: a thread of its own process, by its namespace's
         * number; no other. */
        pid_t asked = args.tid;
        if (caller_resolve_tid(&caller, asked, &args.tid) < 0)
                return sd_bus_error_setf(error, QOS_BUS_ERROR_NO_SUCH_TASK,
                                         "No thread %d in the calling process (a caller in its own PID namespace "
                                         "names only its own threads).", (int) asked);
        r = broker_set_thread_class(m, &caller, &args, &answer);
        _cleanup_free_ char *reason = answer.reason;
        if (r < 0 && answer.error_name)
                return sd_bus_error_set(error, answer.error_name, answer.message);
        if (r < 0)
                return answer.message[0] ? sd_bus_error_set_errnof(error, r, "%s", answer.message) : r;
        return sd_bus_reply_method_return(msg, "ss", qclass_to_string(answer.granted), reason);
}

int broker_property(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                    void *userdata, sd_bus_error *error) {
        static const struct {
                const char *name;
                BrokerCount which;
        } props[] = {
                { "RequestsGranted", BROKER_GRANTED },
                { "RequestsHeld", BROKER_HELD },
                { "RequestsDenied", BROKER_DENIED },
                { "RequestsRateLimited", BROKER_RATE_LIMITED },
        };
        for (size_t i = 0; i < ELEMENTSOF(props); i++)
                if (strcmp(prop, props[i].name) == 0)
                        return sd_bus_message_append(reply, "t", broker_count(userdata, props[i].which));
        return -ENOENT;
}
