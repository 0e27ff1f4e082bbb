/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "core/macro.h"
#include "config/typo.h"

unsigned typo_distance(const char *got, const char *want) {
        size_t n = strlen(got), m = strlen(want);
        unsigned row[32];

        if (strcasecmp(got, want) == 0)
                return 0;
        /* Only short words are compared: keys and sections are. */
        if (m >= ELEMENTSOF(row) || n > m + TYPO_MAX || m > n + TYPO_MAX)
                return TYPO_MAX + 1;
        for (size_t j = 0; j <= m; j++)
                row[j] = (unsigned) j;
        for (size_t i = 1; i <= n; i++) {
                unsigned diag = row[0];
                row[0] = (unsigned) i;
                for (size_t j = 1; j <= m; j++) {
                        unsigned up = row[j];
                        unsigned cost = tolower((unsigned char) got[i - 1]) != tolower((unsigned char) want[j - 1]);
                        unsigned best = diag + cost;
                        if (row[j] + 1 < best)
                                best = row[j] + 1;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        row[j] = best;
                        diag = up;
                }
        }
        return row[m] <= TYPO_MAX ? row[m] : TYPO_MAX + 1;
}
