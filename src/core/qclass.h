/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The QoS classes, their names and the aliases people type. No kernel knowledge. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Ordered by importance, so classes compare with < and >. */
typedef enum QClass {
        QCLASS_UNSPECIFIED = 0,
        QCLASS_BACKGROUND,
        QCLASS_UTILITY,
        QCLASS_USER_INITIATED,
        QCLASS_USER_INTERACTIVE,
        _QCLASS_MAX,
} QClass;

/* What "default" means: the class that equals the kernel's own defaults. */
#define QCLASS_DEFAULT QCLASS_UTILITY

static inline bool qclass_is_valid(int c) {
        return c > QCLASS_UNSPECIFIED && c < _QCLASS_MAX;
}

/* Canonical name ("user-interactive"); "unspecified" for QCLASS_UNSPECIFIED. */
const char *qclass_to_string(QClass c);

/* Accepts canonical names, short forms (ui, in, ut, bg), "interactive",
 * "initiated", "default", Apple's QOS_CLASS_* and schedqos' QOS_* spellings,
 * case-insensitively, '-' and '_' alike. Returns the class or -EINVAL. */
int qclass_from_string(const char *s);

/* "user-interactive, user-initiated, utility, background" for error messages. */
const char *qclass_valid_names(void);

/* The more important of two classes; unspecified never wins. */
static inline QClass qclass_max(QClass a, QClass b) {
        return a > b ? a : b;
}
static inline QClass qclass_min(QClass a, QClass b) {
        if (a == QCLASS_UNSPECIFIED)
                return b;
        if (b == QCLASS_UNSPECIFIED)
                return a;
        return a < b ? a : b;
}
