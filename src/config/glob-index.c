/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "config/glob-index.h"

#define NO_ITEM UINT32_MAX

/* 32 bytes: one per rule in the executable indexes. */
struct GlobItem {
        const char *pattern;
        uint32_t prefix;
        uint32_t quick;         /* leading characters that are plain, unescaped */
        uint32_t value;
        uint32_t aux;
        uint32_t next_same;     /* next item with the same exact name */
        bool glob;
};

struct GlobSlot {
        uint32_t head;          /* first item with this name; NO_ITEM: empty */
        uint32_t hash;
};

bool glob_is_pattern(const char *s) {
        return strpbrk(s, "*?[") != NULL;
}

size_t glob_literal_prefix(const char *s) {
        size_t n = 0;
        for (const char *p = s; *p; p++) {
                if (*p == '\\' && p[1]) {
                        p++;
                        n++;
                        continue;
                }
                if (strchr("*?[", *p))
                        break;
                n++;
        }
        return n;
}

bool glob_match(const char *pattern, bool is_glob, const char *s) {
        if (!s)
                return false;
        if (!is_glob)
                return strcmp(pattern, s) == 0;
        return fnmatch(pattern, s, 0) == 0;
}

/* FNV-1a: short, well known, good enough for names spread by a typo. */
static uint32_t hash_name(const char *s) {
        uint32_t h = 2166136261u;
        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= 16777619u;
        }
        return h;
}

int glob_index_add(GlobIndex *gi, const char *pattern, uint32_t value, uint32_t aux) {
        if (gi->n_items >= NO_ITEM - 1)
                return -E2BIG;
        /* Capacity doubles whenever the count reaches a power of two, so
         * no capacity field is needed. */
        if ((gi->n_items & (gi->n_items - 1)) == 0) {
                size_t n = gi->n_items ? gi->n_items * 2 : 1;
                GlobItem *items = reallocarray(gi->items, n, sizeof *items);
                if (!items)
                        return -ENOMEM;
                gi->items = items;
        }
        bool glob = glob_is_pattern(pattern);
        size_t len = strlen(pattern);
        if (len > UINT32_MAX)
                return -E2BIG;
        gi->items[gi->n_items++] = (GlobItem) {
                .pattern = pattern,
                .prefix = (uint32_t) (glob ? glob_literal_prefix(pattern) : len),
                .quick = (uint32_t) strcspn(pattern, "*?[\\"),
                .value = value,
                .aux = aux,
                .next_same = NO_ITEM,
                .glob = glob,
        };
        return 0;
}

static GlobSlot *find_slot(GlobSlot *slots, size_t n_slots, const GlobItem *items, const char *name,
                           uint32_t hash) {
        size_t mask = n_slots - 1;
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
                GlobSlot *s = &slots[i];
                if (s->head == NO_ITEM)
                        return s;
                if (s->hash == hash && strcmp(items[s->head].pattern, name) == 0)
                        return s;
        }
}

static int cmp_glob(const void *a, const void *b, void *userdata) {
        const GlobItem *items = userdata;
        const GlobItem *x = &items[*(const uint32_t *) a], *y = &items[*(const uint32_t *) b];
        if (x->prefix != y->prefix)
                return x->prefix > y->prefix ? -1 : 1;
        /* Insertion order breaks ties; qsort is not stable on its own. */
        uint32_t i = *(const uint32_t *) a, j = *(const uint32_t *) b;
        return i < j ? -1 : i > j;
}

/* Below this, scanning every glob is as cheap as finding the group. */
#define GLOB_GROUPS_MIN 32
#define NO_FIRST 256

static unsigned first_char(const GlobItem *it) {
        return it->quick > 0 ? (unsigned char) it->pattern[0] : NO_FIRST;
}

/* A counting sort of the positions by first character keeps each group in
 * specificity order. */
static int build_groups(GlobIndex *gi) {
        gi->first_start = calloc(NO_FIRST + 2, sizeof *gi->first_start);
        gi->by_first = calloc(gi->n_globs, sizeof *gi->by_first);
        if (!gi->first_start || !gi->by_first)
                return -ENOMEM;
        for (size_t k = 0; k < gi->n_globs; k++)
                gi->first_start[first_char(&gi->items[gi->globs[k]]) + 1]++;
        for (unsigned c = 1; c <= NO_FIRST + 1; c++)
                gi->first_start[c] += gi->first_start[c - 1];
        uint32_t fill[NO_FIRST + 1];
        memcpy(fill, gi->first_start, sizeof fill);
        for (size_t k = 0; k < gi->n_globs; k++)
                gi->by_first[fill[first_char(&gi->items[gi->globs[k]])]++] = (uint32_t) k;
        return 0;
}

int glob_index_build(GlobIndex *gi) {
        size_t n_exact = 0, n_globs = 0;
        for (size_t i = 0; i < gi->n_items; i++)
                gi->items[i].glob ? n_globs++ : n_exact++;

        if (n_globs > 0) {
                gi->globs = calloc(n_globs, sizeof *gi->globs);
                if (!gi->globs)
                        return -ENOMEM;
                for (size_t i = 0; i < gi->n_items; i++)
                        if (gi->items[i].glob)
                                gi->globs[gi->n_globs++] = (uint32_t) i;
                qsort_r(gi->globs, gi->n_globs, sizeof *gi->globs, cmp_glob, gi->items);
                if (gi->n_globs >= GLOB_GROUPS_MIN) {
                        int r = build_groups(gi);
                        if (r < 0)
                                return r;
                }
        }

        if (n_exact == 0)
                return 0;
        /* At most half full, so a probe sequence stays short. */
        size_t n_slots = 4;
        while (n_slots < n_exact * 2)
                n_slots *= 2;
        gi->slots = malloc(n_slots * sizeof *gi->slots);
        if (!gi->slots)
                return -ENOMEM;
        gi->n_slots = n_slots;
        for (size_t i = 0; i < n_slots; i++)
                gi->slots[i] = (GlobSlot) { .head = NO_ITEM };

        /* Insert backwards so each chain comes out in insertion order. */
        for (size_t i = gi->n_items; i-- > 0;) {
                GlobItem *it = &gi->items[i];
                if (it->glob)
                        continue;
                uint32_t h = hash_name(it->pattern);
                GlobSlot *s = find_slot(gi->slots, gi->n_slots, gi->items, it->pattern, h);
                it->next_same = s->head;
                s->head = (uint32_t) i;
                s->hash = h;
        }
        return 0;
}

void glob_index_done(GlobIndex *gi) {
        free(gi->items);
        free(gi->slots);
        free(gi->globs);
        free(gi->by_first);
        free(gi->first_start);
        *gi = (GlobIndex) {};
}

static int try_glob(const GlobIndex *gi, size_t k, const char *name, glob_index_cb cb, void *userdata) {
        const GlobItem *it = &gi->items[gi->globs[k]];
        /* Most globs start with plain text: reject on that before fnmatch. */
        if (strncmp(it->pattern, name, it->quick) != 0 || fnmatch(it->pattern, name, 0) != 0)
                return 0;
        return cb(it->value, it->aux, userdata);
}

int glob_index_lookup(const GlobIndex *gi, const char *name, glob_index_cb cb, void *userdata) {
        int r;

        if (!name)
                return 0;
        if (gi->n_slots > 0) {
                const GlobSlot *s = find_slot(gi->slots, gi->n_slots, gi->items, name, hash_name(name));
                for (uint32_t i = s->head; i != NO_ITEM; i = gi->items[i].next_same) {
                        r = cb(gi->items[i].value, gi->items[i].aux, userdata);
                        if (r != 0)
                                return r;
                }
        }
        if (!gi->by_first) {
                for (size_t k = 0; k < gi->n_globs; k++)
                        if ((r = try_glob(gi, k, name, cb, userdata)) != 0)
                                return r;
                return 0;
        }
        /* Only the globs that start with name's first character, and those
         * that start with a wildcard: merge the two groups by position. */
        unsigned c = (unsigned char) name[0];
        uint32_t a = gi->first_start[c], a_end = gi->first_start[c + 1];
        uint32_t b = gi->first_start[NO_FIRST], b_end = gi->first_start[NO_FIRST + 1];
        while (a < a_end || b < b_end) {
                uint32_t k = b >= b_end || (a < a_end && gi->by_first[a] < gi->by_first[b]) ? gi->by_first[a++]
                                                                                           : gi->by_first[b++];
                if ((r = try_glob(gi, k, name, cb, userdata)) != 0)
                        return r;
        }
        return 0;
}
