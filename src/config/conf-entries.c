/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config/conf-entries.h"
#include "core/macro.h"

int conf_path_join(const char *a, const char *b, char **ret) {
        return asprintf(ret, "%s/%s", a, b) < 0 ? -ENOMEM : 0;
}

int cmp_entry(const void *a, const void *b) {
        const Entry *x = a, *y = b;
        int c = strcmp(x->unit, y->unit);
        if (c != 0)
                return c;
        if (!x->dropin != !y->dropin)
                return x->dropin ? 1 : -1;
        if (x->dropin && (c = strcmp(x->dropin, y->dropin)) != 0)
                return c;
        return x->level > y->level ? -1 : x->level < y->level;
}

void entry_done(Entry *e) {
        free(e->unit);
        free(e->dropin);
        free(e->path);
        *e = (Entry) {};
}

static void heap_swap(Entry *h, size_t i, size_t j) {
        Entry t = h[i];
        h[i] = h[j];
        h[j] = t;
}

static void heap_up(Entry *h, size_t i) {
        for (; i > 0 && cmp_entry(&h[(i - 1) / 2], &h[i]) < 0; i = (i - 1) / 2)
                heap_swap(h, i, (i - 1) / 2);
}

static void heap_down(Entry *h, size_t n, size_t i) {
        for (;;) {
                size_t big = i, c = 2 * i + 1;
                if (c < n && cmp_entry(&h[c], &h[big]) > 0)
                        big = c;
                if (c + 1 < n && cmp_entry(&h[c + 1], &h[big]) > 0)
                        big = c + 1;
                if (big == i)
                        return;
                heap_swap(h, i, big);
                i = big;
        }
}

/* e is left out: counted, and kept if it is the lowest so far. */
static void entry_skip(EntryList *l, Entry *e) {
        l->n_skipped++;
        if (!l->first_skipped.path || cmp_entry(e, &l->first_skipped) < 0) {
                entry_done(&l->first_skipped);
                l->first_skipped = *e;
        } else
                entry_done(e);
        *e = (Entry) {};
}

/* Into the heap of a capped directory: the max_files lowest stay. */
static int entry_keep_capped(EntryList *l, Entry *e) {
        size_t max = l->cap->max_files;
        if (l->n_heap < max) {
                if (!l->heap && !(l->heap = calloc(max, sizeof *l->heap)))
                        return -ENOMEM;
                l->heap[l->n_heap] = *e;
                heap_up(l->heap, l->n_heap++);
                return 0;
        }
        if (max > 0 && cmp_entry(e, &l->heap[0]) < 0) {
                Entry top = l->heap[0];
                l->heap[0] = *e;
                heap_down(l->heap, l->n_heap, 0);
                entry_skip(l, &top);
                return 0;
        }
        entry_skip(l, e);
        return 0;
}

/* mask: 1 or 0, or -1 when not known yet. */
int entry_add(EntryList *l, const char *unit, const char *dropin, const char *dir, const char *name,
                     unsigned level, int mask, UnitKind kind) {
        Entry e = { .level = level, .mask = mask > 0, .mask_unknown = mask < 0, .kind = kind };
        e.unit = strdup(unit);
        e.dropin = dropin ? strdup(dropin) : NULL;
        if (!e.unit || (dropin && !e.dropin) || conf_path_join(dir, name, &e.path) < 0) {
                entry_done(&e);
                return -ENOMEM;
        }
        if (l->cap && level >= l->cap->from_level)
                return entry_keep_capped(l, &e);
        Entry *items = reallocarray(l->items, l->n + 1, sizeof *items);
        if (!items) {
                entry_done(&e);
                return -ENOMEM;
        }
        l->items = items;
        l->items[l->n++] = e;
        return 0;
}

/* The capped entries join the others; the ones left out are reported once,
 * at the first of them. */
int entry_list_take_capped(EntryList *l, DiagList *diag) {
        if (l->n_heap > 0) {
                Entry *items = reallocarray(l->items, l->n + l->n_heap, sizeof *items);
                if (!items)
                        return -ENOMEM;
                l->items = items;
                memcpy(items + l->n, l->heap, l->n_heap * sizeof *items);
                l->n += l->n_heap;
                l->n_heap = 0;
        }
        if (l->n_skipped == 0)
                return 0;
        return diag_add(diag, LOG_ERR, l->first_skipped.path, 0,
                        "more than %zu %s (%s=); this %s and %zu after it in name order skipped",
                        l->cap->max_files, l->dirs ? "drop-in directories" : "rule files",
                        l->cap->setting ?: "the limit", l->dirs ? "directory" : "file", l->n_skipped - 1);
}

void entry_list_done(EntryList *l) {
        for (size_t i = 0; i < l->n; i++)
                entry_done(&l->items[i]);
        free(l->items);
        for (size_t i = 0; i < l->n_heap; i++)
                entry_done(&l->heap[i]);
        free(l->heap);
        entry_done(&l->first_skipped);
}
