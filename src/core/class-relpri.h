/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Relative priority within a class, as in Apple's API: 0 (the class as the
 * table has it) down to -15. It moves a thread's nice up by a few steps and
 * never as far as the next lower class's nice, so the classes keep their
 * order whatever relative priority their threads ask for. */
#pragma once

#include "core/kernel-caps.h"
#include "core/qclass.h"
#include "core/task-attr.h"

#define QCLASS_RELPRI_MIN (-15)
#define QCLASS_RELPRI_STEPS 16   /* 0, -1, ..., -15 */

static inline bool qclass_relpri_is_valid(int relpri) {
        return relpri <= 0 && relpri >= QCLASS_RELPRI_MIN;
}

/* How many nice values relative priority spreads over in class c: the gap
 * to the next lower class's nice, at most 16 (one per step); 0 for
 * background, whose SCHED_IDLE threads all weigh the same. */
int class_relpri_span(QClass c);

/* The nice offset (0 .. span-1) for relpri in class c; -EINVAL if c or
 * relpri is out of range. */
int class_relpri_to_nice_offset(QClass c, int relpri);

/* The relative priority a nice offset in c stands for, in *ret: the one
 * nearest 0 that maps to it. -EINVAL if the offset is outside the class's
 * span. */
int class_relpri_from_nice_offset(QClass c, int offset, int *ret);

/* class_target_attr() with relpri applied; relpri must be valid. */
void class_target_attr_relpri(QClass c, int relpri, const KernelCaps *caps, TaskAttr *ret);

/* class_from_attr() that also recognises a nice moved by relative priority
 * and returns it in *ret_relpri (0 for an unspecified class). */
QClass class_from_attr_relpri(const TaskAttr *attr, const KernelCaps *caps, int *ret_relpri);
