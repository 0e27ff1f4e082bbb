/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The class recorded for a pthread_attr_t, which has no field for one:
 * a small table keyed by the attribute object's address. */
#pragma once

#include <pthread.h>

#include "core/qclass.h"

#define ATTR_TABLE_MAX 128

/* Record c at relpri for attr; QCLASS_UNSPECIFIED forgets it. -ENOSPC if
 * the table is full. */
int attr_table_set(const pthread_attr_t *attr, QClass c, int relpri);

/* The recorded class, or QCLASS_UNSPECIFIED (and 0). */
void attr_table_get(const pthread_attr_t *attr, QClass *ret_class, int *ret_relpri);
