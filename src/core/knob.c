/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/knob.h"
#include "core/macro.h"

static const char *const knob_names[_KNOB_MAX] = {
        [KNOB_POLICY] = "policy",
        [KNOB_NICE] = "nice",
        [KNOB_SLICE] = "slice",
        [KNOB_UCLAMP] = "uclamp",
        [KNOB_RAMPUP] = "ramp-up",
        [KNOB_IOPRIO] = "ioprio",
        [KNOB_TIMER_SLACK] = "timer-slack",
        [KNOB_GROUP] = "group",
};

const char *knob_to_string(Knob k) {
        if (k < 0 || k >= _KNOB_MAX)
                return NULL;
        return knob_names[k];
}

const char *knob_mask_to_string(unsigned mask, char *buf, size_t size) {
        size_t len = 0;
        if (size == 0)
                return buf;
        buf[0] = '\0';
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!(mask & KNOB_BIT(k)))
                        continue;
                int n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", knob_names[k]);
                if (n < 0 || (size_t) n >= size - len)
                        break;
                len += (size_t) n;
        }
        if (len == 0)
                snprintf(buf, size, "-");
        return buf;
}
