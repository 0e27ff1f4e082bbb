/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The overrides active on one thread: a multiset of classes, one entry per
 * override begun and not yet ended. The thread runs at the highest of its
 * base class and these; ending the last one brings back the base. Pure
 * (no system calls), shared by libqos and qosd so both stack alike. */
#pragma once

#include <stdbool.h>

#include "core/qclass.h"

typedef struct OverrideStack {
        unsigned count[_QCLASS_MAX];    /* active overrides per class */
} OverrideStack;

void override_stack_push(OverrideStack *s, QClass c);

/* Removes one override of class c; -ENOENT if there is none. */
int override_stack_pop(OverrideStack *s, QClass c);

/* The highest class with an active override; QCLASS_UNSPECIFIED if none. */
QClass override_stack_top(const OverrideStack *s);

static inline bool override_stack_empty(const OverrideStack *s) {
        return override_stack_top(s) == QCLASS_UNSPECIFIED;
}

/* What the thread should run at: the top override if it is above the base
 * class, else QCLASS_UNSPECIFIED, meaning "the base, exactly as it was".
 * A base that matches no class (a setting made by hand) counts as below
 * every class, so any override raises it. */
QClass override_stack_effective(const OverrideStack *s, QClass base);
