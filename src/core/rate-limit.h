/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Token buckets keyed by a caller, as rtkit limits its clients: a flood of
 * requests gets an error at once instead of a busy daemon. A fixed table
 * (no allocation per caller, so a flood of callers costs no memory); a new
 * caller takes the slot of the caller that has been quiet longest among a
 * few probed ones. The clock is passed in, so the limiter is pure. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define RATE_LIMIT_SLOTS 1024
#define RATE_LIMIT_PROBE 8

typedef struct RateBucket {
        uint64_t key;                   /* 0: empty */
        double tokens;
        uint64_t last_usec;
} RateBucket;

typedef struct RateLimiter {
        double rate;                    /* tokens per second */
        double burst;                   /* bucket size */
        RateBucket slots[RATE_LIMIT_SLOTS];
} RateLimiter;

void rate_limit_init(RateLimiter *l, double rate, double burst);
/* Take one token for key at now_usec (0 counts as 1); false: over the limit. */
bool rate_limit_take(RateLimiter *l, uint64_t key, uint64_t now_usec);

/* A budget rather than a count, for work whose cost is known only once it
 * is done: ready while key's bucket is above 0; the work then charges what
 * it cost, which may leave the bucket in debt until the refill pays it. */
bool rate_limit_ready(RateLimiter *l, uint64_t key, uint64_t now_usec);
void rate_limit_charge(RateLimiter *l, uint64_t key, double cost, uint64_t now_usec);
