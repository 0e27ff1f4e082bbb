/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "core/focus-source.h"

bool focus_source_name_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n >= FOCUS_SOURCE_MAX)
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
                        return false;
        return true;
}
