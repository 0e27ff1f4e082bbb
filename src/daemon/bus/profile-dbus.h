/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SetProfile (root) and GetProfile (anyone) on the bus: the kernel
 * scheduler profile (core/sched-profile.h). */
#pragma once

#include <systemd/sd-bus.h>

int profile_method_set(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int profile_method_get(sd_bus_message *msg, void *userdata, sd_bus_error *error);
