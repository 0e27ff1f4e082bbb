/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The door of the read-only methods anyone may call (ListTasks, Explain,
 * ListLoans, GetProfile): who asks, and whether their user may ask again
 * now (query-limits.h). Before any work, so that a flood costs a hash
 * lookup and an error each. */
#pragma once

#include <systemd/sd-bus.h>

#include "state/manager.h"

/* 0 with the caller in *ret, or -errno with the error set. */
int query_admit(Manager *m, sd_bus_message *msg, QueryKind kind, Caller *ret, sd_bus_error *error);
