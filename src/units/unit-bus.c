/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fs-identity.h"
#include "core/log.h"
#include "core/macro.h"
#include "units/unit-bus.h"

#define SYSTEMD_DEST "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER "org.freedesktop.systemd1.Manager"

static int socket_address(bool user, uid_t uid, char *buf, size_t size) {
        const char *rt = getenv("XDG_RUNTIME_DIR");
        int n;

        if (!user)
                n = snprintf(buf, size, "unix:path=/run/systemd/private");
        else if (uid == getuid() && rt && rt[0] == '/' && !strpbrk(rt, ",;="))
                n = snprintf(buf, size, "unix:path=%s/systemd/private", rt);
        else
                n = snprintf(buf, size, "unix:path=/run/user/%u/systemd/private", (unsigned) uid);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

int unit_bus_open(bool user, uid_t uid, gid_t gid, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        char address[256];
        int r;

        r = socket_address(user, uid, address, sizeof address);
        if (r >= 0)
                r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_method_call_timeout(bus, UNIT_BUS_TIMEOUT_USEC);
        if (r < 0)
                return r;
        /* connect() checks the socket's permissions with the fs identity. */
        bool as_user = user && geteuid() == 0 && uid != 0;
        if (as_user && (r = fs_identity_enter(uid, gid)) < 0)
                return r;
        r = sd_bus_start(bus);
        if (as_user)
                fs_identity_leave();
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

static int call_failed(const char *what, const char *unit, sd_bus_error *error, int r) {
        log_debug("systemd: %s %s: %s", what, unit, error->message ?: strerror(-r));
        if (sd_bus_error_has_name(error, "org.freedesktop.systemd1.NoSuchUnit"))
                r = -ENOENT;
        else if (sd_bus_error_has_name(error, "org.freedesktop.systemd1.UnitExists"))
                r = -EEXIST;
        sd_bus_error_free(error);
        return r;
}

static const char *unit_interface(const char *unit) {
        const char *dot = strrchr(unit, '.');
        if (dot && strcmp(dot, ".scope") == 0)
                return "org.freedesktop.systemd1.Scope";
        if (dot && strcmp(dot, ".slice") == 0)
                return "org.freedesktop.systemd1.Slice";
        return "org.freedesktop.systemd1.Service";
}

int unit_bus_get_weight(sd_bus *bus, const char *unit, uint64_t *ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = sd_bus_call_method(bus, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER, "GetUnit", &error, &reply, "s",
                               unit);
        if (r < 0)
                return call_failed("GetUnit", unit, &error, r);
        r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0)
                r = sd_bus_get_property_trivial(bus, SYSTEMD_DEST, path, unit_interface(unit), "CPUWeight", &error,
                                                't', ret);
        sd_bus_message_unref(reply);
        return r < 0 ? call_failed("reading CPUWeight of", unit, &error, r) : 0;
}

int unit_bus_set_weight(sd_bus *bus, const char *unit, uint64_t weight) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd_bus_call_method(bus, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER, "SetUnitProperties", &error,
                                   NULL, "sba(sv)", unit, 1, 1, "CPUWeight", "t", weight);
        return r < 0 ? call_failed("setting CPUWeight of", unit, &error, r) : 0;
}

/* StartTransientUnit(name, "fail", properties, no auxiliary units). */
static int start_transient(sd_bus *bus, const char *unit, const char *slice, const pid_t *pids, size_t n,
                           uint64_t weight, const char *description) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *msg = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &msg, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                           "StartTransientUnit");
        if (r >= 0)
                r = sd_bus_message_append(msg, "ss", unit, "fail");
        if (r >= 0)
                r = sd_bus_message_open_container(msg, 'a', "(sv)");
        if (r >= 0)
                r = sd_bus_message_append(msg, "(sv)(sv)", "Description", "s", description, "CPUWeight", "t",
                                          weight);
        if (r >= 0 && slice)
                r = sd_bus_message_append(msg, "(sv)", "Slice", "s", slice);
        if (r >= 0 && n > 0) {
                r = sd_bus_message_open_container(msg, 'r', "sv");
                if (r >= 0)
                        r = sd_bus_message_append(msg, "s", "PIDs");
                if (r >= 0)
                        r = sd_bus_message_open_container(msg, 'v', "au");
                if (r >= 0)
                        r = sd_bus_message_open_container(msg, 'a', "u");
                for (size_t i = 0; r >= 0 && i < n; i++)
                        r = sd_bus_message_append(msg, "u", (uint32_t) pids[i]);
                for (int k = 0; r >= 0 && k < 3; k++)
                        r = sd_bus_message_close_container(msg);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(msg);
        if (r >= 0)
                r = sd_bus_message_append(msg, "a(sa(sv))", 0);
        if (r >= 0)
                r = sd_bus_call(bus, msg, 0, &error, NULL);
        sd_bus_message_unref(msg);
        return r < 0 ? call_failed("starting", unit, &error, r) : 0;
}

int unit_bus_start_scope(sd_bus *bus, const char *scope, const char *slice, const pid_t *pids, size_t n,
                         uint64_t weight, const char *description) {
        if (n == 0)
                return -EINVAL; /* a scope starts with its processes */
        return start_transient(bus, scope, slice, pids, n, weight, description);
}

int unit_bus_start_slice(sd_bus *bus, const char *slice, uint64_t weight, const char *description) {
        return start_transient(bus, slice, NULL, NULL, 0, weight, description);
}

int unit_bus_ensure_idle_slice(sd_bus *bus) {
        uint64_t cur;
        int r = unit_bus_start_slice(bus, UNIT_QOS_SLICE, UNIT_WEIGHT_IDLE, "qosd: background work, idle");
        if (r != -EEXIST)
                return r;
        /* Left from an earlier run, or made by someone: idle is all it needs. */
        r = unit_bus_get_weight(bus, UNIT_QOS_SLICE, &cur);
        if (r >= 0 && cur != UNIT_WEIGHT_IDLE)
                r = unit_bus_set_weight(bus, UNIT_QOS_SLICE, UNIT_WEIGHT_IDLE);
        return r;
}
