/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reload on the bus: root only, answered with the reload's message. */
#pragma once

#include <systemd/sd-bus.h>

int reload_method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error);
