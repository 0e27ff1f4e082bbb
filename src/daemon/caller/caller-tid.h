/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A thread as a caller names it. A program in a sandbox (bubblewrap,
 * Flatpak) runs in a PID namespace of its own: the TID it sends is its
 * namespace's number, which on the host is some other task, perhaps
 * someone else's. Such a caller can name only the threads of its own
 * process: qosd looks the number up among them (NSpid in each one's
 * status), never among the host's tasks. */
#pragma once

#include <sys/types.h>

#include "caller/caller-identity.h"

/* How many of a nested caller's threads one lookup reads: a program in a
 * sandbox with more threads can name the first this many (the oldest, as
 * /proc lists them), and each call costs qosd a bounded time. */
#define CALLER_TID_SCAN_MAX 1024

/* The host TID of the thread the caller calls tid: tid itself for a caller
 * in qosd's PID namespace; for a nested one, the thread of its own process
 * with that number in its namespace, or -ESRCH when it has none among the
 * first CALLER_TID_SCAN_MAX (or it exited meanwhile). */
int caller_resolve_tid(const Caller *c, pid_t tid, pid_t *ret);
