/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The loans' methods on the bus: BeginOverride, BeginLockOverride and
 * EndOverride for a caller's own threads (identified as for
 * SetThreadClass), ListLoans for anyone (their own processes; root: all).
 * What a loan is and how long it lives: overrides.h. */
#pragma once

#include <systemd/sd-bus.h>

int overrides_method_begin_override(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int overrides_method_begin_lock_override(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int overrides_method_end_override(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int overrides_method_list_loans(sd_bus_message *msg, void *userdata, sd_bus_error *error);
