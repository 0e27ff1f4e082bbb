/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What qosd holds for the overrides lent through it (overrides.c is the
 * bus side): one record per override, one owner per thread that has
 * overrides (pinned, with the settings it had before the first), one
 * client per bus connection that holds some, and a tally per user.
 *
 * An owner is acted on only after its pin is checked (the pidfd where the
 * kernel has thread pidfds, the start time where it has not), before and
 * after each apply, so a TID the kernel gave to another task never gets
 * the owner's override or its saved settings. Owners that exit are dropped
 * on the proc connector's EXIT for their TID, on every kernel, and by the
 * sweep after lost events.
 *
 * Limits, so that no client can grow qosd or spend its file descriptors
 * (an owner holds a pidfd on kernels with thread pidfds): overrides per
 * connection and per user, and a reserve of descriptors that overrides
 * never take, kept for qosd's own /proc reads. */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "manager.h"
#include "qclass.h"
#include "task-ref.h"

/* Enough for every thread of a large program to wait on a lock at once. */
#define OVERRIDES_PER_CONNECTION 256
/* A user's programs together: a few such programs, not without bound. */
#define OVERRIDES_PER_USER 1024
/* File descriptors below RLIMIT_NOFILE that overrides leave to the rest of
 * qosd: its /proc reads (two or three at a time), the bus, the proc
 * connector, inotify, and up to 64 connections to systemd managers. */
#define OVERRIDE_FD_RESERVE 256

typedef struct OverrideClient OverrideClient;

typedef enum OverrideLimit {
        OVERRIDE_LIMIT_NONE,
        OVERRIDE_LIMIT_CONNECTION,
        OVERRIDE_LIMIT_USER,
        OVERRIDE_LIMIT_FDS,
} OverrideLimit;

/* qosd's book, made on first use; NULL without memory. */
Overrides *override_book(Manager *m);

/* The client for msg's sender (tracked: its overrides end with its
 * connection), made on its first override; uid is the caller's. */
int override_client_get(Manager *m, sd_bus_message *msg, uid_t uid, OverrideClient **ret);

/* Which limit a new override for this client would pass, if any. */
OverrideLimit override_limit(Manager *m, const OverrideClient *c);

/* Begin an override of class c on the pinned owner. Takes *owner (the book
 * keeps it or closes it; *owner is TASK_REF_NULL afterwards). -EBUSY: the
 * owner is real-time; -EMFILE: a new owner would eat into the reserve;
 * -ESRCH: it exited. */
int override_begin(Manager *m, OverrideClient *client, TaskRef *owner, QClass c, uint64_t *ret_id);

/* End override id if sender holds it, restoring its owner when it was the
 * last. -ENOENT: no such override of sender's; -ESRCH: ended, but its
 * owner had exited (nothing restored). ret_tid: the owner's TID. */
int override_end(Manager *m, const char *sender, uint64_t id, pid_t *ret_tid);

/* Counted refusals for a limit (the OverridesLimited property). */
void override_count_limited(Manager *m);
