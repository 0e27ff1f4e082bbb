/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The public headers stand alone: <qos/darwin.h> first, nothing before it,
 * built as strict C99 with -Wpedantic (see meson.build). */
#include <qos/darwin.h>

#include <stdio.h>

int main(void) {
        qos_class_t c = QOS_CLASS_DEFAULT;
        /* Apple's spelling compiles against libqos unchanged. */
        int (*set)(qos_class_t, int) = pthread_set_qos_class_self_np;
        printf("%s %d\n", qos_class_to_string(c), set != NULL && QOS_MIN_RELATIVE_PRIORITY == -15);
        return qos_class_to_string(c) ? 0 : 1;
}
