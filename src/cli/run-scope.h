/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* Move the calling process into an idle scope of its own, if systemd runs
 * the machine and the caller is in one of its units: 1 if moved, 0 if the
 * machine is not like that, negative errno if the manager refused. */
int run_scope_enter(bool verbose);
