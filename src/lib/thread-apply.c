/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>

#include "lib/broker-client.h"
#include "core/class-relpri.h"
#include "core/class-table.h"
#include "lib/held-requests.h"
#include "core/kernel-caps.h"
#include "qos/qos.h"
#include "core/task-apply.h"
#include "core/task-privilege.h"
#include "lib/thread-apply.h"

static int apply_brokered(pid_t tid, QClass c, int relpri) {
        QClass granted;
        int r = broker_set_thread_class(tid, c, relpri, &granted);
        if (r >= 0)
                held_requests_set(tid, r == QOS_REQUEST_HELD);
        return r;
}

int thread_apply_class(pid_t tid, bool self, QClass c, int relpri) {
        const KernelCaps *caps = kernel_caps();
        TaskAttr cur, want;
        /* Never the group: qosd's cpu groups are the system's, created and
         * cleaned up by qosd and qosctl, not from inside applications. */
        unsigned mask = KNOBS_ALL & ~KNOB_BIT(KNOB_GROUP);
        int r;

        r = task_attr_read(tid, &cur);
        if (r < 0)
                return r;
        if (task_attr_is_realtime(&cur))
                return -EBUSY;
        class_target_attr_relpri(c, relpri, caps, &want);
        if (task_plan_own_change(&cur, self, &want, &mask))
                return apply_brokered(tid, c, relpri);
        if (!caps->privileged && held_requests_contains(tid)) {
                /* qosd would raise it again later: tell qosd instead. If it
                 * has gone meanwhile, so has its memory of the request. */
                r = apply_brokered(tid, c, relpri);
                if (r != -ENOTCONN)
                        return r;
                held_requests_set(tid, false);
        }
        return thread_apply_attr(tid, &cur, &want, mask);
}

int thread_read_class(pid_t tid, QClass *ret_class, int *ret_relpri) {
        TaskAttr a;
        int r = task_attr_read(tid, &a);
        if (r < 0)
                return r;
        /* Real-time and deadline threads match no class: unspecified. */
        *ret_class = class_from_attr_relpri(&a, kernel_caps(), ret_relpri);
        return 0;
}
