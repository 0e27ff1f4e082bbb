/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Setting and reading a class on a thread of this process: the choice
 * between the fast path (the kernel, directly) and the slow path (qosd). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "core/qclass.h"
#include "core/task-attr.h"

/* Set class c (valid) at relpri (valid) on tid, a thread of this process
 * (self: the calling thread). Returns 0, QOS_REQUEST_HELD or a negative
 * errno as documented for qos_self_set_class(). */
int thread_apply_class(pid_t tid, bool self, QClass c, int relpri);

/* Bring tid to want on the knobs in mask, directly (cur: tid's settings
 * just read, or NULL to read them). Fails only if a knob that makes a
 * class (policy, nice, slice) is refused: -EPERM, or the kernel's error. */
int thread_apply_attr(pid_t tid, const TaskAttr *cur, const TaskAttr *want, unsigned mask);

/* The class and relative priority tid has now, as the kernel reports it
 * (QCLASS_UNSPECIFIED and 0 if its settings match no class). */
int thread_read_class(pid_t tid, QClass *ret_class, int *ret_relpri);
