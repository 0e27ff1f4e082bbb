/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The broker: unprivileged programs ask through it for what the kernel
 * lets only root do (SetThreadClass, data/org.qosd.QoS1.Broker.md). Who
 * may have what is access-policy.c's; this file gathers the facts,
 * applies the verdict and remembers held requests. Its bus face:
 * broker-dbus.h. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "caller/bus-args.h"
#include "caller/caller-identity.h"
#include "state/manager.h"

/* Set up the limits and counters; they outlive a lost bus connection. */
int broker_start(Manager *m);
void broker_free(Manager *m);

/* The caller's process and user may ask once more now; false: counted as
 * rate limited. */
bool broker_admit(Manager *m, const Caller *caller);

/* What the broker answers: the class granted and why (escaped for the
 * bus; the caller frees reason), or on a refusal the error's name (NULL:
 * the errno's) and message. */
typedef struct BrokerAnswer {
        QClass granted;
        char *reason;
        const char *error_name;
        char message[256];
} BrokerAnswer;

/* Judge caller's request and apply the verdict. 0: granted or held (see
 * ret), negative errno: refused (-EACCES), no such thread (-ESRCH),
 * real-time (-EBUSY) or the kernel refused. */
int broker_set_thread_class(Manager *m, const Caller *caller, const SetThreadClassArgs *args,
                            BrokerAnswer *ret);

/* Decide every remembered request again (the foreground or the caps
 * changed) and move the threads whose verdict changed; then cap every loan
 * again at what its lender has now (overrides_recap()). */
void broker_reevaluate(Manager *m, const char *why);

/* The same for one thread, if it has a remembered request: after an exec
 * the program is another, and so may be its caps (a MaxClass= of the
 * program that qosctl run started). */
void broker_reevaluate_thread(Manager *m, pid_t tid, const char *why);

typedef enum BrokerCount {
        BROKER_GRANTED,
        BROKER_HELD,
        BROKER_DENIED,
        BROKER_RATE_LIMITED,
} BrokerCount;

/* The counters of the Requests* properties. */
uint64_t broker_count(const Manager *m, BrokerCount which);
