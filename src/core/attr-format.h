/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A thread's attributes on one line ("policy=idle nice=19 slice=8.00ms
 * ioprio=idle slack=10.00ms"), for listings and explanations. */
#pragma once

#include <stddef.h>

#include "core/task-attr.h"

/* The knobs in mask that this kernel has, space separated; "on-fork=reset"
 * is added when reset-on-fork is set. Returns buf. */
const char *task_attr_format(const TaskAttr *a, unsigned mask, char *buf, size_t size);
