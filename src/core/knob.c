/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/knob-table.h"
#include "core/knob.h"

const char *knob_to_string(Knob k) {
        const KnobRow *row = knob_row(k);
        return row ? row->name : NULL;
}

int knob_from_string(const char *s) {
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (strcmp(s, knob_to_string(k)) == 0)
                        return k;
        return -EINVAL;
}

const char *knob_mask_to_string(unsigned mask, char *buf, size_t size) {
        size_t len = 0;
        if (size == 0)
                return buf;
        buf[0] = '\0';
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!(mask & KNOB_BIT(k)))
                        continue;
                int n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", knob_to_string(k));
                if (n < 0 || (size_t) n >= size - len)
                        break;
                len += (size_t) n;
        }
        if (len == 0)
                snprintf(buf, size, "-");
        return buf;
}
