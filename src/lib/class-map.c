/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "lib/class-map.h"
#include "core/class-relpri.h"
#include "core/macro.h"

static const struct {
        qos_class_t apple;
        QClass core;
} class_map[] = {
        { QOS_CLASS_USER_INTERACTIVE, QCLASS_USER_INTERACTIVE },
        { QOS_CLASS_USER_INITIATED, QCLASS_USER_INITIATED },
        { QOS_CLASS_UTILITY, QCLASS_UTILITY },
        { QOS_CLASS_DEFAULT, QCLASS_UTILITY },      /* after UTILITY: reading back finds UTILITY */
        { QOS_CLASS_BACKGROUND, QCLASS_BACKGROUND },
        { QOS_CLASS_UNSPECIFIED, QCLASS_UNSPECIFIED },
};

int class_from_apple(qos_class_t c, QClass *ret) {
        for (size_t i = 0; i < ELEMENTSOF(class_map); i++)
                if (class_map[i].apple == c) {
                        *ret = class_map[i].core;
                        return 0;
                }
        return -EINVAL;
}

qos_class_t class_to_apple(QClass c) {
        for (size_t i = 0; i < ELEMENTSOF(class_map); i++)
                if (class_map[i].core == c)
                        return class_map[i].apple;
        return QOS_CLASS_UNSPECIFIED;
}

int class_request_from_apple(qos_class_t c, int relpri, QClass *ret) {
        QClass q;
        if (class_from_apple(c, &q) < 0 || !qclass_is_valid(q) || !qclass_relpri_is_valid(relpri))
                return -EINVAL;
        *ret = q;
        return 0;
}

const char *qos_class_to_string(qos_class_t qos_class) {
        QClass q;
        if (class_from_apple(qos_class, &q) < 0)
                return NULL;
        return qclass_to_string(q);
}

int qos_class_from_string(const char *s, qos_class_t *ret) {
        int q = qclass_from_string(s);
        if (q < 0)
                return q;
        *ret = class_to_apple((QClass) q);
        return 0;
}
