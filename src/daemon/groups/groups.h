/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosd's policy for its cpu groups beyond single tasks (which task-control
 * moves with their other knobs): what to keep of a crashed run's groups,
 * and removing the groups that threads left by exiting. */
#pragma once

#include "state/manager.h"

/* At start, after the first scan and the recovery of the previous run's
 * records: a task still in one of qosd's groups stays if qosd manages it
 * now or if it is consistently in that class (put there by `qosctl run` or
 * `set`, which hold without the daemon); any other goes back to the root,
 * and empty groups are removed. */
void groups_recover(Manager *m);

/* Remove qosd's groups that no task is in (periodic scan, exit). */
void groups_tidy(Manager *m);
