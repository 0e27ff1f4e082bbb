/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/bus-client.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/term-escape.h"

/* Each call qosctl makes, by the command a user typed for it; for the
 * calls qosd allows to root only, what they do and whom qosd allows. */
static const struct {
        const char *method, *command, *action, *allowed;
} calls[] = {
        { "ListTasks", "ps", NULL, NULL },
        { "Explain", "explain", NULL, NULL },
        { "GetAll", "status", NULL, NULL },
        { "GetProfile", "profile", NULL, NULL },
        { "SetProfile", "profile", "switching profiles", "root" },
        { "Reload", "reload", "reloading the rules", "root" },
        { "GetForeground", "foreground", NULL, NULL },
        { "SetForeground", "foreground", "setting the foreground",
          "root and the ForegroundUser=/ForegroundGroup= of qosd.conf" },
        { "ResetForeground", "foreground", "resetting the foreground",
          "root and the ForegroundUser=/ForegroundGroup= of qosd.conf" },
};

static size_t call_of(const char *method) {
        for (size_t i = 0; i < ELEMENTSOF(calls); i++)
                if (strcmp(calls[i].method, method) == 0)
                        return i;
        return SIZE_MAX;
}

/* "qosctl reload: ", after the command the user typed. */
static void print_command(size_t call) {
        fprintf(stderr, "qosctl%s%s: ", call == SIZE_MAX ? "" : " ", call == SIZE_MAX ? "" : calls[call].command);
}

/* The one place that turns a failed call into what the user reads: one
 * line naming the command, and the exit code. */
static int report_call_error(const char *method, const sd_bus_error *error, int r) {
        size_t i = call_of(method);

        print_command(i);
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                fprintf(stderr, "qosd is not running (systemctl status qosd)\n");
                return EXIT_NODAEMON;
        }
        /* A root-only call refused to anyone else, by the bus policy or by
         * qosd: what matters is who may. Root refused (without
         * CAP_SYS_NICE) reads qosd's own reason below. */
        bool denied = sd_bus_error_has_names(error, SD_BUS_ERROR_ACCESS_DENIED);
        if (denied && i != SIZE_MAX && calls[i].allowed && geteuid() != 0) {
                fprintf(stderr, "needs root (qosd allows %s to %s only)\n", calls[i].action, calls[i].allowed);
                return EXIT_DENIED;
        }
        /* qosd's message may quote names and files of others. */
        _cleanup_free_ char *message = term_escape_lines(error && error->message ? error->message : strerror(-r));
        fprintf(stderr, "%s%s\n", denied ? "refused by qosd: " : "", message ?: "?");
        if (denied)
                return EXIT_DENIED;
        if (sd_bus_error_has_names(error, QOS_BUS_ERROR_NO_SUCH_TASK))
                return EXIT_NOTFOUND;
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_INVALID_ARGS))
                return EXIT_USAGE;
        return EXIT_FAIL;
}

/* The system bus, or why qosd cannot be reached without one. */
static int open_bus(const char *method, sd_bus **ret) {
        int r = sd_bus_open_system(ret);
        if (r >= 0)
                return 0;
        print_command(call_of(method));
        if (r == -ENOENT || r == -ECONNREFUSED)
                fprintf(stderr, "qosd is not reachable: there is no system bus (systemctl status dbus qosd)\n");
        else
                fprintf(stderr, "qosd is not reachable: cannot connect to the system bus: %s\n", strerror(-r));
        return EXIT_NODAEMON;
}

int cli_bus_call(const char *interface, const char *method, sd_bus_message **reply,
                 const char *types, ...) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        va_list ap;
        int r;

        r = open_bus(method, &bus);
        if (r != 0)
                return r;
        va_start(ap, types);
        r = sd_bus_call_methodv(bus, QOS_BUS_NAME, QOS_BUS_PATH, interface ?: QOS_BUS_INTERFACE, method,
                                &error, reply, types, ap);
        va_end(ap);
        sd_bus_unref(bus); /* the reply holds its own reference */
        if (r < 0) {
                r = report_call_error(method, &error, r);
                sd_bus_error_free(&error);
                return r;
        }
        return 0;
}

int cli_bus_call_pids(const char *method, const pid_t *pids, size_t n, sd_bus_message **reply) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *call = NULL;
        sd_bus *bus = NULL;
        int r;

        r = open_bus(method, &bus);
        if (r != 0)
                return r;
        _Static_assert(sizeof(pid_t) == sizeof(int32_t), "D-Bus \"ai\" is pid_t[]");
        r = sd_bus_message_new_method_call(bus, &call, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, method);
        if (r >= 0)
                r = sd_bus_message_append_array(call, 'i', pids, n * sizeof *pids);
        if (r >= 0)
                r = sd_bus_call(bus, call, 0, &error, reply);
        sd_bus_message_unref(call);
        sd_bus_unref(bus);
        if (r < 0) {
                r = report_call_error(method, &error, r);
                sd_bus_error_free(&error);
                return r;
        }
        return 0;
}

int cli_parse_help_only(int argc, char **argv, void (*help)(void)) {
        static const struct option opts[] = {
                { "help", no_argument, NULL, 'h' },
                {},
        };
        int c;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
                if (c == 'h') {
                        help();
                        return EXIT_OK;
                }
                return EXIT_USAGE;
        }
        return -1;
}

int cli_task_rows_begin(sd_bus_message *reply) {
        int r = sd_bus_message_enter_container(reply, 'a', "(iisssss)");
        return r < 0 ? r : 0;
}

int cli_task_row_next(sd_bus_message *reply, CliTaskRow *row) {
        return sd_bus_message_read(reply, "(iisssss)", &row->pid, &row->tid, &row->comm, &row->class_name,
                                   &row->state, &row->origin, &row->knobs);
}
