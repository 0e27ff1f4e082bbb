/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a program that uses libqos looks like: both public headers, found
 * through pkg-config, and a call into the shared library. */
#include <qos/darwin.h>
#include <qos/qos.h>
#include <stdio.h>
#include <string.h>

int main(void) {
        qos_class_t c;
        if (qos_class_from_string("background", &c) < 0 || c != QOS_CLASS_BACKGROUND)
                return 1;
        puts(qos_class_to_string(c));
        return strcmp(qos_class_to_string(QOS_CLASS_USER_INTERACTIVE), "user-interactive") != 0;
}
