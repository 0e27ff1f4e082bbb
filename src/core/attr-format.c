/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "core/attr-format.h"
#include "core/kernel-caps.h"

const char *task_attr_format(const TaskAttr *a, unsigned mask, char *buf, size_t size) {
        const KernelCaps *caps = kernel_caps();
        size_t len = 0;

        buf[0] = '\0';
        for (Knob k = 0; k < _KNOB_MAX && len < size; k++) {
                char v[TASK_ATTR_VALUE_MAX];
                if (!(mask & KNOB_BIT(k)) || !caps->supported[k])
                        continue;
                int n = snprintf(buf + len, size - len, "%s%s=%s", len ? " " : "", knob_to_string(k),
                                 task_attr_format_knob(a, k, v, sizeof v));
                if (n < 0)
                        break;
                len += (size_t) n;
        }
        if (a->reset_on_fork && len < size)
                snprintf(buf + len, size - len, "%son-fork=reset", len ? " " : "");
        return buf;
}
