/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/arena.h"

/* Blocks double from the first, small one (a process that loads two rules,
 * as every program the preload enters does, takes one page) up to a size
 * at which 20,000 rules take a few hundred blocks. */
#define BLOCK_MIN (1024 - 64)
#define BLOCK_MAX (32 * 1024 - 64)
/* An object larger than this gets a block of its own, so that it never
 * wastes the rest of the current one. */
#define OWN_BLOCK_MIN (BLOCK_MAX / 4)

typedef struct Block {
        struct Block *next;
        size_t size;
        alignas(max_align_t) unsigned char data[];
} Block;

struct Arena {
        Block *blocks;          /* the current block first */
        size_t used;            /* of the current block */
        size_t footprint;
};

Arena *arena_new(void) {
        return calloc(1, sizeof(Arena));
}

Arena *arena_free(Arena *a) {
        if (!a)
                return NULL;
        for (Block *b = a->blocks, *next; b; b = next) {
                next = b->next;
                free(b);
        }
        free(a);
        return NULL;
}

static Block *block_new(Arena *a, size_t size) {
        Block *b = malloc(sizeof *b + size);
        if (!b)
                return NULL;
        b->size = size;
        a->footprint += sizeof *b + size;
        return b;
}

void *arena_alloc(Arena *a, size_t size, size_t align) {
        if (align == 0 || (align & (align - 1)) != 0 || align > alignof(max_align_t))
                return NULL;
        if (size == 0)
                size = 1;
        if (size > OWN_BLOCK_MIN) {
                /* Behind the current block, which stays current. */
                Block *b = block_new(a, size);
                if (!b)
                        return NULL;
                if (a->blocks) {
                        b->next = a->blocks->next;
                        a->blocks->next = b;
                } else {
                        b->next = NULL;
                        a->blocks = b;
                        a->used = size;
                }
                return b->data;
        }
        size_t at = a->blocks ? (a->used + align - 1) & ~(align - 1) : 0;
        if (!a->blocks || at + size > a->blocks->size) {
                size_t next = a->blocks ? 2 * a->blocks->size + 64 : BLOCK_MIN;
                if (next > BLOCK_MAX || size > next)
                        next = BLOCK_MAX;
                Block *b = block_new(a, next);
                if (!b)
                        return NULL;
                b->next = a->blocks;
                a->blocks = b;
                at = 0;
        }
        a->used = at + size;
        return a->blocks->data + at;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
        size_t len = strnlen(s, n);
        char *q = arena_alloc(a, len + 1, 1);
        if (!q)
                return NULL;
        memcpy(q, s, len);
        q[len] = '\0';
        return q;
}

char *arena_strdup(Arena *a, const char *s) {
        return arena_strndup(a, s, SIZE_MAX);
}

size_t arena_footprint(const Arena *a) {
        return a ? a->footprint : 0;
}
