/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who sent a method call: the process and user behind the sender's bus
 * connection, never what the arguments claim. The bus reports the PID and
 * uid it took from the socket when the client connected (SO_PEERCRED); the
 * process may have exited since and its PID been reused. So qosd notes
 * when each connection appeared (NameOwnerChanged, in order with the
 * connection's own messages) and accepts the PID only if the process now
 * behind it started no later than that: a process started after the
 * connection cannot be the one that opened it. The caller is pinned by
 * (PID, start time) and checked again after acting, as rtkit does. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

#include "core/pid-map.h"

typedef struct Caller {
        pid_t pid;
        uid_t uid;              /* effective uid when it connected */
        uint64_t start_time;    /* of pid, clock ticks since boot */
        bool privileged;        /* could change any thread itself: see caller_identify() */
        bool nested;            /* in a PID namespace below qosd's (a sandbox): its
                                 * thread numbers are its namespace's, see caller-tid.h */
} Caller;

typedef struct CallerBook {
        PidMap peers;           /* serial of the unique name ":1.N" -> Peer* */
        uint64_t since;         /* ticks when qosd started watching */
        uint64_t stalled_until; /* CLOCK_MONOTONIC: the bus did not answer, new senders are refused */
        sd_bus_slot *slot;
} CallerBook;

/* caller_identify() for a method handler: the caller, or -errno with an
 * AccessDenied error that says why it could not be told. */
int caller_identify_or_refuse(CallerBook *b, sd_bus_message *msg, Caller *ret, sd_bus_error *error);

/* Defence in depth beside the bus policy: changing methods are for a
 * caller that could change any thread itself (uid 0 and CAP_SYS_NICE),
 * never for a root service stripped of CAP_SYS_NICE. 0 or -errno with
 * AccessDenied. */
int caller_require_privileged(CallerBook *b, sd_bus_message *msg, sd_bus_error *error);

/* Watch connections come and go; call before taking method calls. */
int caller_book_start(CallerBook *b, sd_bus *bus);
void caller_book_free(CallerBook *b);

/* The caller of msg, or -ESRCH (it exited, or its PID now names a process
 * that cannot have sent it), or another negative errno. It is privileged
 * when the kernel would let it change any thread's scheduling itself:
 * uid 0 when it connected (the bus's word, which no other user can have)
 * and CAP_SYS_NICE in its effective set now, in qosd's user namespace. A
 * root service stripped of CAP_SYS_NICE is not, nor is "root" inside a
 * user namespace (its capabilities reach only that namespace). */
int caller_identify(CallerBook *b, sd_bus_message *msg, Caller *ret);

/* 0 if c's process still runs under the same PID, -ESRCH if not. */
int caller_recheck(const Caller *c);

/* "now" in the unit of /proc's start times (ticks since boot). */
uint64_t caller_ticks_now(void);

/* The caller belongs to group gid (effective or supplementary), as the bus
 * reports it; false when it cannot tell. */
int caller_in_group(sd_bus_message *msg, gid_t gid);
