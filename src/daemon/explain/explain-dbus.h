/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ListTasks and Explain on the bus: anyone may ask (query-admit.h), and
 * sees another user's threads as explain.h shows them. */
#pragma once

#include <systemd/sd-bus.h>

int explain_method_list_tasks(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int explain_method_explain(sd_bus_message *msg, void *userdata, sd_bus_error *error);
