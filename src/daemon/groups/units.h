/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The group layer on machines that systemd runs (PID 1, cgroup v2): there
 * every process sits in a unit's cgroup, which qosd must not reach around,
 * so a class's share against other applications is set through systemd.
 *
 * - A process whose unit holds only it and its own (its descendants, or
 *   processes in the same class): the unit gets the class's CPUWeight,
 *   at runtime (SetUnitProperties), background "idle".
 * - A background process in a unit it shares (`make -j` in a terminal
 *   tab's scope): its tree moves into a transient scope of its own,
 *   qos-background-PID-START.scope, in qos.slice (idle) of the same
 *   manager; its later children follow it in the kernel.
 * - Other classes in a shared unit: per-thread knobs inside the unit.
 *
 * A unit whose CPUWeight someone else set (an admin's set-property,
 * uresourced) is a foreign change: left alone, counted, said once. When the
 * last process that wanted a weight exits or loses its class, and on
 * SIGTERM, qosd puts back the weights it set, unless someone changed them
 * since. A moved process cannot go back into a unit that does not delegate
 * its subtree: restoring it means its scope's weight goes back to the
 * default, where it competes like any other application.
 *
 * What qosd set is kept in /run/qos/units, so that a qosd restarted after
 * SIGKILL knows its changes from foreign ones, keeps those the rules still
 * want and restores the others (units_recover). */
#pragma once

#include "state/manager.h"

/* Start the backend if systemd runs the machine (and load the previous
 * run's records); else m->units stays NULL and every call is a no-op. */
int units_start(Manager *m);

/* Put back what qosd set (restore) or keep the records for the next run. */
void units_stop(Manager *m, bool restore);

/* The process's class may have changed (exec, scan, fork): give its unit
 * the class's weight, move it, or let it go. */
void units_sync(Manager *m, pid_t pid);

/* The process exited or has no class any more. */
void units_release(Manager *m, pid_t pid);

/* After the first scan: the previous run's changes that no process wants
 * any more are put back. */
void units_recover(Manager *m);

/* For `qosctl explain`: what the unit layer does for the process;
 * -ENOENT if the backend is off. */
int units_describe(Manager *m, pid_t pid, char *buf, size_t size);

/* For `qosctl status`: "systemd units: N weighted, M moved, K foreign" or
 * why the backend is off. */
const char *units_status(Manager *m, char *buf, size_t size);
