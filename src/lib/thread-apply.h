/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Setting and reading a class on a thread of this process: the choice
 * between the fast path (the kernel, directly) and the slow path (qosd). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "qclass.h"

/* Set class c (valid) at relpri (valid) on tid, a thread of this process
 * (self: the calling thread). Returns 0, QOS_REQUEST_HELD or a negative
 * errno as documented for qos_self_set_class(). */
int thread_apply_class(pid_t tid, bool self, QClass c, int relpri);

/* The class and relative priority tid has now, as the kernel reports it
 * (QCLASS_UNSPECIFIED and 0 if its settings match no class). */
int thread_read_class(pid_t tid, QClass *ret_class, int *ret_relpri);
