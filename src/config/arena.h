/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A bump allocator for what a loaded rule set keeps until it is freed as a
 * whole: the names, patterns and small arrays of tens of thousands of
 * rules. One malloc() per block instead of one per string saves the
 * allocator's header and rounding on each, and keeps a rule's data on
 * the same pages. Nothing is freed on its own; arena_free() frees all.
 * The Arena itself stays where it was allocated, so pointers to it (held
 * by rules in arrays that move as they grow) stay valid. */
#pragma once

#include <stddef.h>

typedef struct Arena Arena;

Arena *arena_new(void);
Arena *arena_free(Arena *a);

/* size bytes aligned for any object, or for a string when align is 1.
 * NULL on out-of-memory. */
void *arena_alloc(Arena *a, size_t size, size_t align);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);

/* Bytes taken from malloc() (blocks and headers), for tests and benchmarks. */
size_t arena_footprint(const Arena *a);
