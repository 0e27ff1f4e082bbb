/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Apple's names over the native calls: positive errno values, and 0 for a
 * request qosd holds (Apple's calls succeed for any valid request). */
#include <errno.h>

#include "qos/darwin.h"

static int darwin_errno(int r) {
        if (r >= 0)
                return 0;
        /* A real-time thread has left the QoS system, as on Apple's after
         * pthread_setschedparam(): EPERM there. */
        return r == -EBUSY ? EPERM : -r;
}

int pthread_set_qos_class_self_np(qos_class_t __qos_class, int __relative_priority) {
        return darwin_errno(qos_self_set_class(__qos_class, __relative_priority));
}

int pthread_get_qos_class_np(pthread_t __pthread, qos_class_t *__qos_class, int *__relative_priority) {
        return darwin_errno(qos_pthread_get_class(__pthread, __qos_class, __relative_priority));
}

int pthread_attr_set_qos_class_np(pthread_attr_t *__attr, qos_class_t __qos_class, int __relative_priority) {
        if (__qos_class == QOS_CLASS_UNSPECIFIED)
                return EINVAL;
        return darwin_errno(qos_attr_set_class(__attr, __qos_class, __relative_priority));
}

int pthread_attr_get_qos_class_np(pthread_attr_t *__attr, qos_class_t *__qos_class, int *__relative_priority) {
        return darwin_errno(qos_attr_get_class(__attr, __qos_class, __relative_priority));
}
