/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The client side of qosd's D-Bus interface (org.qosd.QoS1.Manager), shared
 * by the subcommands that ask the daemon. Honours $DBUS_SYSTEM_BUS_ADDRESS. */
#pragma once

#include <systemd/sd-bus.h>

#define QOS_BUS_NAME "org.qosd.QoS1"
#define QOS_BUS_PATH "/org/qosd/QoS1"
#define QOS_BUS_INTERFACE "org.qosd.QoS1.Manager"

/* Connect to the system bus. On failure prints why and returns an exit
 * code (> 0); 0 on success. */
int cli_bus_connect(sd_bus **ret);

/* Call a Manager method. On a D-Bus error prints it (with advice) and
 * returns the matching exit code; 0 on success with *reply set. */
int cli_bus_call(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...);

/* An exit code for a failed call; prints the error message. */
int cli_bus_error(const char *what, const sd_bus_error *error, int r);
