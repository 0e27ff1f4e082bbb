/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The threads of this process for which qosd holds a request below the
 * class asked for, and will raise them later. A later request for such a
 * thread must go to qosd too, even one the fast path could do, or qosd
 * would still raise the thread to what it asked for before. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#define HELD_REQUESTS_MAX 64

bool held_requests_contains(pid_t tid);

/* Remember tid (held) or forget it (!held). When the table is full the
 * oldest entry goes: its thread is most likely gone. */
void held_requests_set(pid_t tid, bool held);
