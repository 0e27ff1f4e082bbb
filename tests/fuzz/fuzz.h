/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every fuzz target checks after a load. */
#pragma once

#include "config/rules.h"

/* Every message names a file and says something; then the list is freed. */
static inline void fuzz_check_diags(DiagList *diag) {
        for (size_t i = 0; i < diag->n; i++)
                if (!diag->items[i].message || !diag->items[i].path)
                        __builtin_trap();
        diag_list_clear(diag);
}
