/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The client side of qosd's D-Bus interface (org.qosd.QoS1.Manager), shared
 * by the subcommands that ask the daemon. Honours $DBUS_SYSTEM_BUS_ADDRESS. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "core/bus-protocol.h"

/* Connect to the system bus and call interface.method on qosd (interface
 * NULL: the Manager). The reply keeps the connection alive until it is
 * unreferenced. On failure prints why (with advice: qosd not running,
 * permission) and returns the matching exit code; 0 with *reply set. */
int cli_bus_call(const char *interface, const char *method, sd_bus_message **reply,
                 const char *types, ...);

/* The same for a method whose only argument is an array of PIDs ("ai"). */
int cli_bus_call_pids(const char *method, const pid_t *pids, size_t n, sd_bus_message **reply);

/* One row of a ListTasks reply (a(iisssss)); the strings live as long as
 * the reply. */
typedef struct CliTaskRow {
        int32_t pid, tid;
        const char *comm, *class_name, *state, *origin, *knobs;
} CliTaskRow;

/* Enter a ListTasks reply's array; then cli_task_row_next() until it
 * returns 0 (the end). Both return negative errno on a malformed reply. */
int cli_task_rows_begin(sd_bus_message *reply);
int cli_task_row_next(sd_bus_message *reply, CliTaskRow *row);

/* getopt for subcommands whose only option is --help. Returns -1 when done
 * (optind at the first operand), else the exit code to return. */
int cli_parse_help_only(int argc, char **argv, void (*help)(void));
