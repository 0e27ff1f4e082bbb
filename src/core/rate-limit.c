/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "core/rate-limit.h"

void rate_limit_init(RateLimiter *l, double rate, double burst) {
        memset(l, 0, sizeof *l);
        l->rate = rate;
        l->burst = burst < 1 ? 1 : burst;
}

static uint64_t mix(uint64_t x) {
        /* splitmix64's finaliser: keys are PIDs and uids, far from random */
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
}

static void refill(const RateLimiter *l, RateBucket *b, uint64_t now) {
        if (now > b->last_usec) {
                b->tokens += (double) (now - b->last_usec) * l->rate / 1e6;
                if (b->tokens > l->burst)
                        b->tokens = l->burst;
        }
        b->last_usec = now;
}

/* key's bucket, refilled to now_usec (a new or evicted key's is full). */
static RateBucket *bucket(RateLimiter *l, uint64_t key, uint64_t now_usec) {
        key = key ?: 1; /* 0 marks an empty slot */
        size_t start = mix(key) % RATE_LIMIT_SLOTS;
        RateBucket *b = NULL, *oldest = NULL;

        for (size_t i = 0; i < RATE_LIMIT_PROBE && !b; i++) {
                RateBucket *s = &l->slots[(start + i) % RATE_LIMIT_SLOTS];
                if (s->key == key)
                        b = s;
                else if (!oldest || (oldest->key != 0 && (s->key == 0 || s->last_usec < oldest->last_usec)))
                        oldest = s; /* an empty slot, else the longest quiet */
        }
        if (!b) {
                /* Evicting a caller gives it a full bucket next time; the
                 * per-user limiter beside the per-process one bounds that. */
                b = oldest;
                *b = (RateBucket) { .key = key, .tokens = l->burst, .last_usec = now_usec };
        } else
                refill(l, b, now_usec);
        return b;
}

bool rate_limit_take(RateLimiter *l, uint64_t key, uint64_t now_usec) {
        RateBucket *b = bucket(l, key, now_usec);
        if (b->tokens < 1)
                return false;
        b->tokens -= 1;
        return true;
}

bool rate_limit_ready(RateLimiter *l, uint64_t key, uint64_t now_usec) {
        return bucket(l, key, now_usec)->tokens > 0;
}

void rate_limit_charge(RateLimiter *l, uint64_t key, double cost, uint64_t now_usec) {
        bucket(l, key, now_usec)->tokens -= cost;
}
