/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "core/override-stack.h"

void override_stack_push(OverrideStack *s, QClass c) {
        if (qclass_is_valid(c))
                s->count[c]++;
}

int override_stack_pop(OverrideStack *s, QClass c) {
        if (!qclass_is_valid(c) || s->count[c] == 0)
                return -ENOENT;
        s->count[c]--;
        return 0;
}

QClass override_stack_top(const OverrideStack *s) {
        for (QClass c = _QCLASS_MAX - 1; c > QCLASS_UNSPECIFIED; c--)
                if (s->count[c] > 0)
                        return c;
        return QCLASS_UNSPECIFIED;
}

QClass override_stack_effective(const OverrideStack *s, QClass base) {
        QClass top = override_stack_top(s);
        return top > base ? top : QCLASS_UNSPECIFIED;
}
