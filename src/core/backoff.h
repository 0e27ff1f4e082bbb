/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How long to wait before trying again something that failed (a socket,
 * a connection): at once after a calm spell, else twice the last wait,
 * from min_usec up to max_usec. What keeps failing then costs a few
 * attempts a minute instead of a busy loop. */
#pragma once

#include <stdint.h>

typedef struct Backoff {
        uint64_t min_usec, max_usec, calm_usec;
        uint64_t wait_usec;     /* the last wait */
        uint64_t last_usec;     /* CLOCK_MONOTONIC of the last attempt, 0: none */
} Backoff;

#define BACKOFF_INIT(min, max, calm) { .min_usec = (min), .max_usec = (max), .calm_usec = (calm) }

/* The wait before the next attempt, which is counted as made at now + wait. */
static inline uint64_t backoff_next(Backoff *b, uint64_t now_usec) {
        uint64_t wait = 0;
        if (b->last_usec && now_usec - b->last_usec < b->calm_usec)
                wait = b->wait_usec ? b->wait_usec * 2 : b->min_usec;
        if (wait > b->max_usec)
                wait = b->max_usec;
        b->wait_usec = wait;
        b->last_usec = now_usec + wait;
        return wait;
}
