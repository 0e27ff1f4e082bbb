/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Arguments for any D-Bus signature from a seeded generator, biased toward
 * what reaches deep into qosd: the caller's own threads with their true
 * start times, victims' threads, class and profile names, values seen in
 * earlier replies (override IDs, TIDs), and the edges of every type. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct Rng {
        uint64_t state;
} Rng;

uint64_t rng_next(Rng *r);
/* 0 .. n-1 (0 if n is 0). */
uint64_t rng_below(Rng *r, uint64_t n);
bool rng_one_in(Rng *r, uint64_t n);

#define GEN_TIDS_MAX 64
#define GEN_WORDS_MAX 128
#define GEN_SEEN_MAX 256
#define GEN_ADDRESSES_MAX 8

typedef struct Gen {
        Rng rng;
        const char *marker;                     /* never in a generated string */
        int32_t tids[GEN_TIDS_MAX];             /* threads worth naming: the caller's first */
        uint64_t starts[GEN_TIDS_MAX];          /* their start times, 0 if unknown */
        size_t n_tids, n_own;
        size_t last_tid;                        /* the pool entry an 'i' took last, for the 't' after it */
        uint64_t addresses[GEN_ADDRESSES_MAX];  /* the caller's own lock-like addresses */
        size_t n_addresses;
        const char *interfaces[GEN_WORDS_MAX];  /* borrowed: the object's interface names */
        const char *properties[GEN_WORDS_MAX];  /* ... and property names */
        size_t n_interfaces, n_properties;
        int32_t seen_ints[GEN_SEEN_MAX];        /* from replies, newest replacing oldest */
        uint64_t seen_u64[GEN_SEEN_MAX];
        uint64_t seen_ids[GEN_SEEN_MAX];        /* out-arguments named *_id (override IDs) */
        size_t n_seen_ints, n_seen_u64, n_seen_ids; /* how many were ever seen */
        size_t budget;                          /* bytes the message being built may still take */
        unsigned fds_left;                      /* 'h' values the message may still take */
        int fd;                                 /* what an 'h' sends (/dev/null) */
        char *scratch;                          /* a string being made */
} Gen;

int gen_init(Gen *g, uint64_t seed, const char *marker);
void gen_done(Gen *g);

/* own: a thread of the caller's (add those first). */
void gen_add_tid(Gen *g, int32_t tid, uint64_t start, bool own);
void gen_add_interface(Gen *g, const char *name);
void gen_add_property(Gen *g, const char *name);
void gen_add_address(Gen *g, uint64_t a);
void gen_seen_int(Gen *g, int32_t v);
void gen_seen_u64(Gen *g, uint64_t v);
void gen_seen_id(Gen *g, uint64_t v);

/* Append one value of each complete type in signature to m. names (NULL,
 * or one per complete type) are the arguments' names: most calls follow
 * them ("owner_tid" gets a TID, "owner_start" that thread's start time,
 * "class" a class name), so that calls get past the first check; the rest
 * ignore them. */
int gen_append(Gen *g, sd_bus_message *m, const char *signature, char *const *names, size_t n_names);

/* A random signature of 0..4 complete types (at most size-1 characters). */
void gen_signature(Gen *g, char *buf, size_t size);
