/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The D-Bus interface org.qosd.QoS1.Manager on /org/qosd/QoS1 (see
 * data/org.qosd.QoS1.xml): read-only introspection for everyone, Reload and
 * SetProfile for root. */
#pragma once

#include "state/manager.h"

#include "core/bus-protocol.h"

/* Export the object, all of org.qosd.QoS1.Manager, on m->bus, a new connection
 * (bus-link.c connects and takes the name). */
int dbus_manager_register(Manager *m);
/* At exit: flush and close the connection. */
void dbus_manager_stop(Manager *m);
