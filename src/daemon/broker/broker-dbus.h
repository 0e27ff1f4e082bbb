/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SetThreadClass and the broker's counters on the bus (in the one vtable
 * of org.qosd.QoS1.Manager, bus/manager-dbus.c). The bus face only reads
 * the arguments, finds the caller and passes the answer on; broker.h
 * judges. */
#pragma once

#include <systemd/sd-bus.h>

int broker_method_set_thread_class(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int broker_property(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                    void *userdata, sd_bus_error *error);
