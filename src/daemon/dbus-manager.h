/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The D-Bus interface org.qosd.QoS1.Manager on /org/qosd/QoS1 (see
 * data/org.qosd.QoS1.xml): read-only introspection for everyone, Reload and
 * SetProfile for root. */
#pragma once

#include "manager.h"

#include "bus-protocol.h"

/* Connect (to address, or the system bus), export the object, take the name. */
int dbus_manager_start(Manager *m, const char *address);
void dbus_manager_stop(Manager *m);
