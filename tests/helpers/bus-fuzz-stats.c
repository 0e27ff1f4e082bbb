/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-fuzz-stats.h"

static StatRow *row(StatRow **rows, size_t *n, const char *name) {
        for (size_t i = 0; i < *n; i++)
                if (strcmp((*rows)[i].name, name) == 0)
                        return &(*rows)[i];
        StatRow *grown = realloc(*rows, (*n + 1) * sizeof *grown);
        if (!grown)
                return NULL;
        *rows = grown;
        grown[*n] = (StatRow) { .name = strdup(name) };
        if (!grown[*n].name)
                return NULL;
        return &grown[(*n)++];
}

int stats_count(Stats *s, const char *method, const char *error_name) {
        StatRow *m = row(&s->methods, &s->n_methods, method);
        if (!m)
                return -ENOMEM;
        s->calls++;
        m->calls++;
        if (!error_name) {
                m->ok++;
                return 0;
        }
        m->errors++;
        StatRow *e = row(&s->errors, &s->n_errors, error_name);
        if (!e)
                return -ENOMEM;
        e->calls++;
        return 0;
}

static int by_name(const void *a, const void *b) {
        return strcmp(((const StatRow *) a)->name, ((const StatRow *) b)->name);
}

void stats_print(const Stats *s, FILE *f) {
        qsort(s->methods, s->n_methods, sizeof *s->methods, by_name);
        qsort(s->errors, s->n_errors, sizeof *s->errors, by_name);
        fprintf(f, "%-50s %8s %8s %8s\n", "method", "calls", "ok", "errors");
        for (size_t i = 0; i < s->n_methods; i++)
                fprintf(f, "%-50s %8lu %8lu %8lu\n", s->methods[i].name, s->methods[i].calls, s->methods[i].ok,
                        s->methods[i].errors);
        fprintf(f, "\n%-50s %8s\n", "error", "answers");
        for (size_t i = 0; i < s->n_errors; i++)
                fprintf(f, "%-50s %8lu\n", s->errors[i].name, s->errors[i].calls);
        fprintf(f, "\ncalls %lu, no answer in time %lu, not sent %lu, new connections %lu, reconnects after the bus "
                "closed one %lu, calling thread put back to utility %lu, violations %lu\n", s->calls, s->timeouts, s->unsent, s->new_connections,
                s->reconnects, s->restores, s->violations);
}

void stats_free(Stats *s) {
        for (size_t i = 0; i < s->n_methods; i++)
                free(s->methods[i].name);
        for (size_t i = 0; i < s->n_errors; i++)
                free(s->errors[i].name);
        free(s->methods);
        free(s->errors);
        *s = (Stats) {};
}
