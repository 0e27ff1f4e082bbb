/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosd's connection to the system bus, kept alive. Classes never wait for
 * the bus: without one qosd applies its rules all the same. When the bus
 * is not there at start, or goes away (`systemctl restart dbus`), qosd
 * watches the bus socket (inotify, sd_bus_set_watch_bind()), connects the
 * moment it appears, exports its object and takes org.qosd.QoS1 again.
 * Nothing on the way blocks the event loop once qosd runs. */
#pragma once

#include <stdint.h>

#include "state/manager.h"

/* Connect to address (or the system bus, $DBUS_SYSTEM_BUS_ADDRESS) and
 * take the name before returning, waiting at most a few seconds; if the
 * bus is not there, carry on and connect later. Fails only when another
 * owner holds the name (another qosd) or for lack of memory. */
int bus_link_start(Manager *m, const char *address);
void bus_link_stop(Manager *m);

/* Connections on which qosd took its name, the first one included. */
uint64_t bus_link_connections(const Manager *m);
