/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The public override calls: applied here with CAP_SYS_NICE, lent through
 * qosd without it. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/broker-client.h"
#include "lib/class-map.h"
#include "core/kernel-caps.h"
#include "lib/lib-lock.h"
#include "lib/override.h"
#include "qos/qos.h"
#include "lib/thread-id.h"

static int begin_direct(pid_t tid, QClass c, qos_override_t **ret) {
        qos_override_t *o;

        lib_lock(LIB_LOCK_OVERRIDE);
        int r = override_push_locked(tid, c, &o);
        lib_unlock(LIB_LOCK_OVERRIDE);
        if (r < 0)
                return r;
        r = override_settle(tid);
        if (r < 0) {
                /* All or nothing: take it back, which settles to whatever
                 * the other overrides (or the base) say. */
                (void) override_end_direct(o);
                return r;
        }
        *ret = o;
        return 0;
}

static int begin_brokered(pid_t lender, pid_t tid, QClass c, qos_override_t **ret) {
        qos_override_t *o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        QClass lent;
        pid_t chain[QOS_MUTEX_CHAIN_MAX - 1];
        size_t n;
        int r = broker_begin_override(lender, tid, c, 0, &o->daemon_id, &lent, chain, &n);
        if (r < 0) {
                free(o);
                return r;
        }
        o->tid = tid;
        o->c = lent;
        o->brokered = true;
        *ret = o;
        return 0;
}

int qos_override_begin(pid_t tid, qos_class_t qos_class, qos_override_t **ret) {
        QClass c;
        int r = class_request_from_apple(qos_class, 0, &c);
        if (r < 0 || !ret)
                return -EINVAL;
        r = thread_id_check_own(tid);
        if (r < 0)
                return r;
        if (kernel_caps()->privileged)
                return begin_direct(tid, c, ret);
        return begin_brokered(gettid(), tid, c, ret);
}

int qos_override_begin_from(pid_t lender, pid_t tid, qos_class_t qos_class, qos_override_t **ret) {
        QClass c;
        int r = class_request_from_apple(qos_class, 0, &c);
        if (r < 0 || !ret)
                return -EINVAL;
        r = thread_id_check_own(lender);
        if (r >= 0)
                r = thread_id_check_own(tid);
        if (r < 0)
                return r;
        if (!kernel_caps()->privileged)
                return begin_brokered(lender, tid, c, ret);
        /* As qosd does: no more than the lender runs at now. */
        lib_lock(LIB_LOCK_OVERRIDE);
        QClass has = override_class_locked(lender);
        lib_unlock(LIB_LOCK_OVERRIDE);
        if (has == QCLASS_UNSPECIFIED)
                return -EPERM;
        return begin_direct(tid, qclass_min(c, has), ret);
}

int qos_pthread_override_begin(pthread_t thread, qos_class_t qos_class, qos_override_t **ret) {
        pid_t tid;
        int r = thread_id_from_pthread(thread, &tid);
        if (r < 0)
                return r;
        return qos_override_begin(tid, qos_class, ret);
}

int qos_override_end(qos_override_t *o) {
        int r;

        if (!o)
                return -EINVAL;
        if (!o->brokered)
                return override_end_direct(o);
        /* qosd forgets an override whose thread has exited (or all of
         * them, if it restarted): nothing is left to end. */
        r = broker_end_override(o->daemon_id);
        if (r == -EINVAL)
                r = -ESRCH;
        free(o);
        return r;
}
