/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every key ananicy knows, and what qosd makes of it: the parser
 * (ananicy-import.c) accepts them, the conversion (ananicy-convert.c)
 * judges them. */
#pragma once

#include <stddef.h>

typedef enum ValueType { VALUE_INT, VALUE_STRING } ValueType;

typedef struct AnanicyKey {
        const char *key;
        ValueType type;
        const char *lost;       /* why it is not carried over; NULL: the class carries it */
} AnanicyKey;

extern const AnanicyKey ananicy_known_keys[];
extern const size_t ananicy_n_known_keys;
