/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Overrides lent through qosd by callers without CAP_SYS_NICE (libqos's
 * qos_override_begin() and contended qos_mutex_t): BeginOverride and
 * EndOverride on org.qosd.QoS1.Manager. A caller, identified as for
 * SetThreadClass, lends one of its threads' current class to another of
 * its own threads; qosd raises the owner, stacks overrides as libqos does
 * (the highest wins), restores the owner's settings from before the first
 * override when the last one ends, and drops every override of a thread
 * that exits and of a caller whose bus connection goes away. The book
 * behind it, its pins and its limits: override-book.h. */
#pragma once

#include <systemd/sd-bus.h>

#include "state/manager.h"

typedef struct Overrides Overrides;


/* A thread exited (the proc connector's EXIT): its overrides end, if the
 * owner qosd pinned under that TID is the one gone. */
void overrides_task_exited(Manager *m, pid_t tid);

/* Drop the overrides of every owner that exited unseen (events were lost). */
void overrides_sweep(Manager *m);

/* Cap every loan again at what its waiter has now: after anything that
 * may have changed what threads have (the foreground, the rules, a
 * request). why is for the log. */
void overrides_recap(Manager *m, const char *why);

/* How many overrides are active (the ActiveOverrides property). */
size_t overrides_count(const Manager *m);

/* BeginOverride calls refused for a limit (the OverridesLimited property). */
uint64_t overrides_limited(const Manager *m);

/* End them all and restore their owners (qosd is exiting). */
void overrides_free(Manager *m);
