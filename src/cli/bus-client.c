/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bus-client.h"
#include "cli.h"
#include "macro.h"
#include "term-escape.h"

static int error_exit_code(const char *what, const sd_bus_error *error, int r) {
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                fprintf(stderr, "qosctl: qosd is not running (nobody owns %s on the system bus)\n",
                        QOS_BUS_NAME);
                return EXIT_NODAEMON;
        }
        /* qosd's message may quote names and files of others. */
        _cleanup_free_ char *message = term_escape_lines(error && error->message ? error->message : strerror(-r));
        fprintf(stderr, "qosctl: %s: %s\n", what, message ?: "?");
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_ACCESS_DENIED))
                return EXIT_DENIED;
        if (sd_bus_error_has_names(error, QOS_BUS_ERROR_NO_SUCH_TASK))
                return EXIT_NOTFOUND;
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_INVALID_ARGS))
                return EXIT_USAGE;
        return EXIT_FAIL;
}

int cli_bus_call(const char *interface, const char *method, sd_bus_message **reply,
                 const char *types, ...) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        va_list ap;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "qosctl: cannot connect to the system bus: %s\n", strerror(-r));
                return EXIT_NODAEMON;
        }
        va_start(ap, types);
        r = sd_bus_call_methodv(bus, QOS_BUS_NAME, QOS_BUS_PATH, interface ?: QOS_BUS_INTERFACE, method,
                                &error, reply, types, ap);
        va_end(ap);
        sd_bus_unref(bus); /* the reply holds its own reference */
        if (r < 0) {
                r = error_exit_code(method, &error, r);
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

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "qosctl: cannot connect to the system bus: %s\n", strerror(-r));
                return EXIT_NODAEMON;
        }
        _Static_assert(sizeof(pid_t) == sizeof(int32_t), "D-Bus \"ai\" is pid_t[]");
        r = sd_bus_message_new_method_call(bus, &call, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, method);
        if (r >= 0)
                r = sd_bus_message_append_array(call, 'i', pids, n * sizeof *pids);
        if (r >= 0)
                r = sd_bus_call(bus, call, 0, &error, reply);
        sd_bus_message_unref(call);
        sd_bus_unref(bus);
        if (r < 0) {
                r = error_exit_code(method, &error, r);
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
