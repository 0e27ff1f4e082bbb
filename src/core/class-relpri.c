/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stddef.h>

#include "core/class-relpri.h"
#include "core/class-table.h"

/*
 * The span comes from the table, so it follows any change of the class
 * nices: user-interactive (-20) to user-initiated (-5) is 15 values,
 * -20..-6; user-initiated to utility is -5..-1; utility to background (nice
 * 19, beneath SCHED_IDLE) is 19, capped at 16 so that each step is one nice
 * value, 0..15. The 16 steps spread evenly over the span, rounding towards
 * the class: with a span of 5, relative priorities 0..-3 keep the class
 * nice, -4..-6 add 1, and -13..-15 add 4, one short of the next class; with
 * 15, -1 keeps it and each further step adds 1, up to 14 at -15.
 */
int class_relpri_span(QClass c) {
        const ClassKnobs *k = class_knobs(c), *lower = class_knobs(c - 1);
        if (!k || !lower)
                return 0;
        int gap = lower->nice - k->nice;
        if (gap <= 0)
                return 0;
        return gap < QCLASS_RELPRI_STEPS ? gap : QCLASS_RELPRI_STEPS;
}

int class_relpri_to_nice_offset(QClass c, int relpri) {
        if (!qclass_is_valid(c) || !qclass_relpri_is_valid(relpri))
                return -EINVAL;
        return -relpri * class_relpri_span(c) / QCLASS_RELPRI_STEPS;
}

int class_relpri_from_nice_offset(QClass c, int offset, int *ret) {
        int span = class_relpri_span(c);
        if (!qclass_is_valid(c) || offset < 0 || offset >= (span ?: 1))
                return -EINVAL;
        /* The smallest step count whose offset reaches `offset`; with at
         * most one nice value per step it maps back to exactly `offset`. */
        *ret = span ? -((offset * QCLASS_RELPRI_STEPS + span - 1) / span) : 0;
        return 0;
}

void class_target_attr_relpri(QClass c, int relpri, const KernelCaps *caps, TaskAttr *ret) {
        class_target_attr(c, caps, ret);
        int offset = class_relpri_to_nice_offset(c, relpri);
        if (offset > 0)
                ret->nice += offset;
}

QClass class_from_attr_relpri(const TaskAttr *attr, const KernelCaps *caps, int *ret_relpri) {
        unsigned mask = class_identity_knobs(caps);

        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++) {
                TaskAttr t;
                class_target_attr(c, caps, &t);
                int relpri;
                if (class_relpri_from_nice_offset(c, attr->nice - t.nice, &relpri) < 0)
                        continue;
                t.nice = attr->nice;
                if (task_attr_diff(&t, attr, mask) == 0) {
                        if (ret_relpri)
                                *ret_relpri = relpri;
                        return c;
                }
        }
        if (ret_relpri)
                *ret_relpri = 0;
        return QCLASS_UNSPECIFIED;
}
