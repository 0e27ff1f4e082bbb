/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The slow path: ask qosd, over the system bus, for a class the caller may
 * not set itself. One connection per process, opened on first use and
 * kept; the bus address honours DBUS_SYSTEM_BUS_ADDRESS. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>

#include "core/qclass.h"

/* How long a request may take before the caller gets -ETIMEDOUT. qosd
 * answers in microseconds; a second means it is stuck or gone. */
#define BROKER_TIMEOUT_USEC (1000 * 1000)

/* Ask qosd to give thread tid (of this process) class c at relpri.
 * Returns 0 if granted as asked, 1 (QOS_REQUEST_HELD) if qosd holds it at
 * a lower class (*ret_granted says which), or a negative errno as listed
 * for qos_self_set_class(). */
int broker_set_thread_class(pid_t tid, QClass c, int relpri, QClass *ret_granted);

/* The errno for a failed call: r from sd-bus, e the error it filled in. */
int broker_error_to_errno(const sd_bus_error *e, int r);

/* Ask qosd to raise owner (of this process) to the lower of c and
 * waiter's class (a thread of this process, usually the caller) until
 * broker_end_override(*ret_id). lock: the address of the lock waiter
 * sleeps on, held by owner (0: not one): qosd then lends on along the
 * owners it knows to sleep on locks themselves, and puts their TIDs in
 * ret_chain (room for QOS_MUTEX_CHAIN_MAX - 1), *ret_n of them. */
int broker_begin_override(pid_t waiter, pid_t owner, QClass c, uint64_t lock, uint64_t *ret_id, QClass *ret_lent,
                          pid_t *ret_chain, size_t *ret_n);
int broker_end_override(uint64_t id);
