/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What someone probably meant: a word read from a file (a key, a section)
 * against the few the file format knows, so that a typo is answered with
 * "did you mean". */
#pragma once

#include <stdbool.h>

/* The farthest two words may be apart and still count as a typo. */
#define TYPO_MAX 2u

/* How many characters must be inserted, deleted or changed to make got
 * into want, case ignored (Levenshtein); TYPO_MAX + 1 for anything farther
 * than TYPO_MAX, and for a want of 32 characters or more. */
unsigned typo_distance(const char *got, const char *want);

/* A typo of want: the same but for case, or at most TYPO_MAX changes. */
static inline bool typo_of(const char *got, const char *want) {
        return typo_distance(got, want) <= TYPO_MAX;
}
