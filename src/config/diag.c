/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Errors and warnings found while loading, each tied to file:line. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "core/macro.h"
#include "config/rules.h"

int diag_add(DiagList *l, int level, const char *path, unsigned line, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        _cleanup_free_ char *p = NULL;
        va_list ap;
        int r;

        if (l->max > 0 && l->n >= l->max) {
                l->n_dropped++;
                return 0;
        }
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0) {
                msg = NULL;
                return -ENOMEM;
        }
        p = strdup(path ? path : "(input)");
        if (!p)
                return -ENOMEM;

        Diag *items = reallocarray(l->items, l->n + 1, sizeof *items);
        if (!items)
                return -ENOMEM;
        l->items = items;
        l->items[l->n++] = (Diag) {
                .path = TAKE_PTR(p),
                .line = line,
                .level = level,
                .message = TAKE_PTR(msg),
        };
        return 0;
}

void diag_list_clear(DiagList *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].path);
                free(l->items[i].message);
        }
        free(l->items);
        *l = (DiagList) {};
}

size_t diag_list_count(const DiagList *l, int level) {
        size_t n = 0;
        for (size_t i = 0; i < l->n; i++)
                n += l->items[i].level == level;
        return n;
}

static const char *level_word(int level) {
        return level <= LOG_ERR ? "error" : level == LOG_WARNING ? "warning" : "note";
}

static bool diag_equal(const Diag *a, const Diag *b) {
        return a->line == b->line && a->level == b->level && strcmp(a->path, b->path) == 0 &&
               strcmp(a->message, b->message) == 0;
}

int diag_list_merge_new(DiagList *into, DiagList *from) {
        size_t known = into->n;
        for (size_t i = 0; i < from->n; i++) {
                Diag *d = &from->items[i];
                bool seen = false;
                for (size_t j = 0; j < known && !seen; j++)
                        seen = diag_equal(&into->items[j], d);
                if (seen)
                        continue;
                Diag *items = reallocarray(into->items, into->n + 1, sizeof *items);
                if (!items)
                        return -ENOMEM;
                into->items = items;
                items[into->n++] = *d;
                *d = (Diag) {};
        }
        return 0;
}

void diag_format(const Diag *d, FILE *f) {
        if (d->line > 0)
                fprintf(f, "%s:%u: %s: %s\n", d->path, d->line, level_word(d->level), d->message);
        else
                fprintf(f, "%s: %s: %s\n", d->path, level_word(d->level), d->message);
}

/* By file, then line; equal places keep the order they were found in. */
static int cmp_diag(const void *a, const void *b, void *userdata) {
        const Diag *items = userdata;
        size_t i = *(const size_t *) a, j = *(const size_t *) b;
        int c = strcmp(items[i].path, items[j].path);
        if (c != 0)
                return c;
        if (items[i].line != items[j].line)
                return items[i].line < items[j].line ? -1 : 1;
        return i < j ? -1 : i > j;
}

int diag_list_sort(DiagList *l) {
        if (l->n == 0)
                return 0; /* items may be NULL: no qsort or memcpy on it */
        _cleanup_free_ size_t *order = calloc(l->n, sizeof *order);
        _cleanup_free_ Diag *sorted = calloc(l->n, sizeof *sorted);
        if (!order || !sorted)
                return -ENOMEM;
        for (size_t i = 0; i < l->n; i++)
                order[i] = i;
        qsort_r(order, l->n, sizeof *order, cmp_diag, l->items);
        for (size_t i = 0; i < l->n; i++)
                sorted[i] = l->items[order[i]];
        memcpy(l->items, sorted, l->n * sizeof *sorted);
        return 0;
}

void diag_list_print(const DiagList *l, FILE *f) {
        for (size_t i = 0; i < l->n; i++)
                diag_format(&l->items[i], f);
}
