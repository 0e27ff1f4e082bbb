/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The few calls qosd makes to a systemd manager, over its private socket
 * (/run/systemd/private, or a user manager's /run/user/UID/systemd/private):
 * no bus daemon in between, and it works before the system bus is up. Each
 * call has a short timeout, so an unresponsive manager (a user may stop
 * their own) costs qosd a bounded wait. Errors are negative errno; what the
 * manager said is logged at debug level. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

/* CPUWeight as systemd's bus gives it: unset means the default (100, and
 * systemd leaves the cgroup's cpu controller alone); 0 is "idle". */
#define UNIT_WEIGHT_UNSET UINT64_MAX
#define UNIT_WEIGHT_IDLE 0

#define UNIT_BUS_TIMEOUT_USEC (1000 * 1000)

/* Connect to the system manager (user false) or to user uid's manager.
 * A root caller connects to a user's socket with that user's file-system
 * identity (the socket is the user's, mode 0700); a user connecting to
 * their own manager needs nothing. */
int unit_bus_open(bool user, uid_t uid, gid_t gid, sd_bus **ret);

/* The unit's CPUWeight; -ENOENT if no such unit is loaded. */
int unit_bus_get_weight(sd_bus *bus, const char *unit, uint64_t *ret);

/* Set (or with UNIT_WEIGHT_UNSET, reset) the unit's CPUWeight at runtime:
 * it goes with the unit, and never reaches /etc. */
int unit_bus_set_weight(sd_bus *bus, const char *unit, uint64_t weight);

/* Start transient scope `scope` in `slice` holding pids, with the weight.
 * The manager moves the processes when its job runs, which is soon after
 * the call returns; their later children follow them in the kernel. */
int unit_bus_start_scope(sd_bus *bus, const char *scope, const char *slice, const pid_t *pids, size_t n,
                         uint64_t weight, const char *description);

/* Start transient slice `slice` with the weight; -EEXIST if it exists. */
int unit_bus_start_slice(sd_bus *bus, const char *slice, uint64_t weight, const char *description);

/* qos.slice, where moved background work runs: directly below the
 * manager's root, so that idle holds against app.slice and session.slice
 * alike, not only against siblings. Made idle if it exists already. */
#define UNIT_QOS_SLICE "qos.slice"
int unit_bus_ensure_idle_slice(sd_bus *bus);
