/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl run on a machine systemd runs: a command's share against other
 * applications is its unit's, so background work gets an idle scope of its
 * own in qos.slice, started through the manager that owns the caller's
 * unit (for a user, their own manager: no privilege needed), the way
 * `systemd-run --user --scope -p CPUWeight=idle` does. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/kernel-caps.h"
#include "core/macro.h"
#include "core/proc.h"
#include "cli/run-scope.h"
#include "units/unit-bus.h"
#include "units/unit-path.h"

#define MOVE_WAIT_MS 5000

static bool in_scope(const char *scope) {
        _cleanup_free_ char *cg = NULL;
        UnitRef ref;
        return proc_cgroup(getpid(), "", &cg) >= 0 && unit_ref_from_cgroup(cg, &ref) >= 0 &&
               strcmp(ref.name, scope) == 0;
}

int run_scope_enter(bool verbose) {
        _cleanup_free_ char *cg = NULL;
        char scope[UNIT_NAME_MAX];
        uint64_t start;
        sd_bus *bus = NULL;
        UnitRef ref;
        int r;

        if (!kernel_caps()->cgroup.systemd_units)
                return 0;
        r = proc_cgroup(getpid(), "", &cg);
        if (r < 0 || unit_ref_from_cgroup(cg, &ref) < 0)
                return 0; /* in no unit: the cgroup layer of `run` applies */
        /* A user talks to their own manager; root to the one whose unit it is in. */
        bool user = getuid() != 0 || ref.user;
        uid_t uid = getuid() != 0 ? getuid() : ref.uid;
        r = proc_start_time(getpid(), &start);
        if (r >= 0)
                r = unit_bus_open(user, uid, getgid(), &bus);
        if (r >= 0)
                r = unit_bus_ensure_idle_slice(bus);
        if (r >= 0) {
                pid_t self = getpid();
                snprintf(scope, sizeof scope, "qos-run-%d-%" PRIu64 ".scope", (int) self, start);
                r = unit_bus_start_scope(bus, scope, UNIT_QOS_SLICE, &self, 1, UNIT_WEIGHT_IDLE,
                                         "qosctl run: background");
        }
        sd_bus_flush_close_unref(bus);
        if (r < 0)
                return r;
        /* The manager moves us when its job runs: wait for it, bounded. */
        for (int ms = 0; ms < MOVE_WAIT_MS && !in_scope(scope); ms += 10)
                nanosleep(&(struct timespec) { .tv_nsec = 10 * 1000 * 1000 }, NULL);
        if (!in_scope(scope))
                return -ETIMEDOUT;
        if (verbose)
                printf("scope: %s/%s (idle), from %s\n", UNIT_QOS_SLICE, scope, ref.name);
        return 1;
}
