/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "lib/broker-client.h"
#include "core/bus-protocol.h"
#include "lib/lib-lock.h"
#include "core/macro.h"
#include "core/proc.h"
#include "qos/qos.h"

/* Guarded by LIB_LOCK_BUS: sd-bus connections are not thread-safe. */
static sd_bus *bus;
static pid_t bus_pid;

static int bus_get(sd_bus **ret) {
        /* A connection inherited across fork() belongs to the parent:
         * sd-bus refuses every call on it in the child, including unref,
         * so it is only forgotten here. */
        if (bus && bus_pid != getpid())
                bus = NULL;
        if (!bus) {
                int r = sd_bus_open_system(&bus);
                if (r < 0)
                        return -ENOTCONN;
                bus_pid = getpid();
        }
        *ret = bus;
        return 0;
}

/* After a failure of the connection itself, the next call connects anew
 * (qosd or the bus may have been restarted). */
static void bus_drop_if_closed(void) {
        if (bus && sd_bus_is_open(bus) <= 0)
                bus = sd_bus_flush_close_unref(bus);
}

int broker_error_to_errno(const sd_bus_error *e, int r) {
        static const struct {
                const char *name;
                int error;
        } names[] = {
                { SD_BUS_ERROR_SERVICE_UNKNOWN, ENOTCONN },
                { SD_BUS_ERROR_NAME_HAS_NO_OWNER, ENOTCONN },
                { SD_BUS_ERROR_NO_SERVER, ENOTCONN },
                { SD_BUS_ERROR_DISCONNECTED, ENOTCONN },
                { SD_BUS_ERROR_NO_REPLY, ETIMEDOUT },
                { SD_BUS_ERROR_TIMEOUT, ETIMEDOUT },
                { SD_BUS_ERROR_UNKNOWN_METHOD, EOPNOTSUPP },
                { SD_BUS_ERROR_UNKNOWN_INTERFACE, EOPNOTSUPP },
                { SD_BUS_ERROR_UNKNOWN_OBJECT, EOPNOTSUPP },
                { SD_BUS_ERROR_ACCESS_DENIED, EPERM },
                { SD_BUS_ERROR_AUTH_FAILED, EPERM },
                { SD_BUS_ERROR_INVALID_ARGS, EINVAL },
                { SD_BUS_ERROR_LIMITS_EXCEEDED, EAGAIN },
                { QOS_BUS_ERROR_RATE_LIMITED, EAGAIN },
                { QOS_BUS_ERROR_NO_SUCH_TASK, ESRCH },
                { QOS_BUS_ERROR_REALTIME, EBUSY },
        };

        if (sd_bus_error_is_set(e))
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        if (sd_bus_error_has_name(e, names[i].name))
                                return -names[i].error;
        /* No name we know: a local failure carries its errno in r. */
        switch (-r) {
        case ETIMEDOUT:
                return -ETIMEDOUT;
        case ENOMEM:
                return -ENOMEM;
        case ENOTCONN: case ECONNRESET: case ECONNREFUSED: case ENOENT: case EPIPE:
        case ESHUTDOWN: case ENXIO: case EHOSTUNREACH: case EACCES: case ECHILD:
                return -ENOTCONN;
        default:
                return -EIO; /* a remote error qosd does not document */
        }
}

/* One method call on qosd with the broker's timeout (sd_bus_call_method()
 * would wait 25 s for a stuck qosd). Returns 0 or the errno as listed for
 * qos_self_set_class(). */
static int call_qosd_locked(const char *member, sd_bus_message **reply, const char *types, ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *b;
        va_list ap;
        int r = bus_get(&b);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(b, &m, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, member);
        if (r >= 0) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        if (r < 0)
                return r == -ENOMEM ? r : -EIO;
        r = sd_bus_call(b, m, BROKER_TIMEOUT_USEC, &error, reply);
        if (r < 0) {
                r = broker_error_to_errno(&error, r);
                bus_drop_if_closed();
                return r;
        }
        return 0;
}

static int call_locked(pid_t tid, uint64_t start_time, QClass c, int relpri, QClass *ret_granted) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *granted, *reason;
        int r = call_qosd_locked(QOS_BUS_METHOD_SET_THREAD_CLASS, &reply, QOS_BUS_SIGNATURE_SET_THREAD_CLASS,
                                 (int32_t) tid, start_time, qclass_to_string(c), (int32_t) relpri);
        if (r < 0)
                return r;
        if (sd_bus_message_read(reply, "ss", &granted, &reason) < 0)
                return -EPROTO;
        /* qosd may grant less than asked, never more. */
        int g = qclass_from_string(granted);
        if (g < 0 || !qclass_is_valid(g) || g > (int) c)
                return -EPROTO;
        *ret_granted = (QClass) g;
        return g == (int) c ? 0 : QOS_REQUEST_HELD;
}

int broker_set_thread_class(pid_t tid, QClass c, int relpri, QClass *ret_granted) {
        uint64_t start_time;
        int r;

        /* The thread's start time goes with its TID, so that qosd acts on
         * this thread and not on one that got the TID after it exited. */
        r = proc_start_time(tid, &start_time);
        if (r < 0)
                return r;

        lib_lock(LIB_LOCK_BUS);
        r = call_locked(tid, start_time, c, relpri, ret_granted);
        lib_unlock(LIB_LOCK_BUS);
        return r;
}

/* The class qosd lent: never more than asked. */
static int read_lent(sd_bus_message *reply, QClass c, uint64_t *ret_id, QClass *ret_lent) {
        const char *lent;
        if (sd_bus_message_read(reply, "ts", ret_id, &lent) < 0 || *ret_id == 0)
                return -EPROTO;
        int l = qclass_from_string(lent);
        if (l < 0 || !qclass_is_valid(l) || l > (int) c)
                return -EPROTO;
        *ret_lent = (QClass) l;
        return 0;
}

static int begin_override_locked(pid_t waiter, uint64_t waiter_start, pid_t owner, uint64_t owner_start,
                                 QClass c, uint64_t lock, uint64_t *ret_id, QClass *ret_lent, pid_t *ret_chain,
                                 size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const void *chain;
        size_t size;
        int r = -EOPNOTSUPP;
        *ret_n = 0;
        if (lock != 0)
                r = call_qosd_locked(QOS_BUS_METHOD_BEGIN_LOCK_OVERRIDE, &reply,
                                     QOS_BUS_SIGNATURE_BEGIN_LOCK_OVERRIDE, (int32_t) waiter, waiter_start,
                                     (int32_t) owner, owner_start, qclass_to_string(c), lock);
        /* Without a lock, or a qosd older than BeginLockOverride. */
        if (r == -EOPNOTSUPP) {
                r = call_qosd_locked(QOS_BUS_METHOD_BEGIN_OVERRIDE, &reply, QOS_BUS_SIGNATURE_BEGIN_OVERRIDE,
                                     (int32_t) waiter, waiter_start, (int32_t) owner, owner_start,
                                     qclass_to_string(c));
                return r < 0 ? r : read_lent(reply, c, ret_id, ret_lent);
        }
        if (r >= 0)
                r = read_lent(reply, c, ret_id, ret_lent);
        if (r < 0)
                return r;
        /* The owners qosd lent to along the chain it knows. */
        if (sd_bus_message_read_array(reply, 'i', &chain, &size) < 0 ||
            size / sizeof(int32_t) > QOS_MUTEX_CHAIN_MAX - 1)
                return -EPROTO;
        for (size_t i = 0; i < size / sizeof(int32_t); i++) {
                int32_t t;
                memcpy(&t, (const char *) chain + i * sizeof t, sizeof t);
                ret_chain[i] = t;
        }
        *ret_n = size / sizeof(int32_t);
        return 0;
}

int broker_begin_override(pid_t waiter, pid_t owner, QClass c, uint64_t lock, uint64_t *ret_id, QClass *ret_lent,
                          pid_t *ret_chain, size_t *ret_n) {
        uint64_t waiter_start, owner_start;
        int r = proc_start_time(waiter, &waiter_start);
        if (r >= 0)
                r = proc_start_time(owner, &owner_start);
        if (r < 0)
                return r;

        lib_lock(LIB_LOCK_BUS);
        r = begin_override_locked(waiter, waiter_start, owner, owner_start, c, lock, ret_id, ret_lent, ret_chain,
                                  ret_n);
        lib_unlock(LIB_LOCK_BUS);
        return r;
}

int broker_end_override(uint64_t id) {
        lib_lock(LIB_LOCK_BUS);
        int r = call_qosd_locked(QOS_BUS_METHOD_END_OVERRIDE, NULL, QOS_BUS_SIGNATURE_END_OVERRIDE, id);
        lib_unlock(LIB_LOCK_BUS);
        return r;
}
