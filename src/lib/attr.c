/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The public calls on attribute objects: a class for threads not yet
 * created, and the init/destroy pair that keeps the table right. */
#include <errno.h>

#include "lib/attr-table.h"
#include "lib/class-map.h"
#include "core/class-relpri.h"
#include "qos/qos.h"

int qos_attr_init(pthread_attr_t *attr) {
        if (!attr)
                return -EINVAL;
        int r = pthread_attr_init(attr);
        if (r != 0)
                return -r;
        return attr_table_set(attr, QCLASS_UNSPECIFIED, 0);
}

int qos_attr_destroy(pthread_attr_t *attr) {
        if (!attr)
                return -EINVAL;
        (void) attr_table_set(attr, QCLASS_UNSPECIFIED, 0);
        return -pthread_attr_destroy(attr);
}

int qos_attr_set_class(pthread_attr_t *attr, qos_class_t qos_class, int relative_priority) {
        QClass c;
        if (!attr || class_from_apple(qos_class, &c) < 0 || !qclass_relpri_is_valid(relative_priority))
                return -EINVAL;
        return attr_table_set(attr, c, c == QCLASS_UNSPECIFIED ? 0 : relative_priority);
}

int qos_attr_get_class(const pthread_attr_t *attr, qos_class_t *qos_class, int *relative_priority) {
        QClass c;
        int relpri;
        if (!attr)
                return -EINVAL;
        attr_table_get(attr, &c, &relpri);
        if (qos_class)
                *qos_class = class_to_apple(c);
        if (relative_priority)
                *relative_priority = relpri;
        return 0;
}
