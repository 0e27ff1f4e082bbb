/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fuzzer's counts: calls per method, answers per error name. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

typedef struct StatRow {
        char *name;
        unsigned long calls, ok, errors;
} StatRow;

typedef struct Stats {
        StatRow *methods, *errors;
        size_t n_methods, n_errors;
        unsigned long calls, timeouts, unsent, new_connections, reconnects, restores, violations;
} Stats;

/* One call of method ("Interface.Member") answered: error_name NULL for a
 * reply; a timeout counts as the error "(no answer in time)". */
int stats_count(Stats *s, const char *method, const char *error_name);

void stats_print(const Stats *s, FILE *f);
void stats_free(Stats *s);
