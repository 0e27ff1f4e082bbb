/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The broker: the methods through which unprivileged programs ask for what
 * the kernel lets only root do (SetThreadClass, data/org.qosd.QoS1.Broker.md),
 * and through which the desktop says what is in the foreground
 * (focus-bus.h). Who may have what is access-policy.c's; this file
 * gathers the facts, applies the verdict and remembers held requests. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "caller/caller-identity.h"
#include "state/manager.h"

/* Export the methods on m->bus (after the Manager's own vtable). */
int broker_start(Manager *m);
void broker_free(Manager *m);
/* The connection went: drop what belonged to it; the counters, limits and
 * remembered requests stay for the next one (broker_start again). */
void broker_bus_lost(Manager *m);

/* Decide every remembered request again (the foreground or the caps
 * changed) and move the threads whose verdict changed; then cap every loan
 * again at what its lender has now (overrides_recap()). */
void broker_reevaluate(Manager *m, const char *why);

/* The caller of msg, pinned as caller-identity.h says. On failure sets
 * error to AccessDenied with the reason and returns its negative errno. */
int broker_identify(Manager *m, sd_bus_message *msg, Caller *ret, sd_bus_error *error);
