/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The power profile in force: power-profiles-daemon's ActiveProfile on the
 * system bus (org.freedesktop.UPower.PowerProfiles, and its older name
 * net.hadess.PowerProfiles), and UPower's OnBattery. power-saver, or on
 * battery, is the saver table; performance the performance one; else, and
 * without power-profiles-daemon, balanced (class-table.h says what each
 * changes). A change goes to the class table and every managed thread is
 * judged again at once (m->gate_moved). Only the names' owners are heard. */
#pragma once

#include <stddef.h>

#include "state/manager.h"

/* Follow the profile on m->bus (at each connection): asynchronous, the
 * loop never waits for the bus. */
int power_bus_start(Manager *m);
void power_free(Manager *m);

/* For qosctl status: "power-saver (power-profiles-daemon; on battery)". */
const char *power_describe(const Manager *m, char *buf, size_t size);
