/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Apple's class values (the public qos_class_t) to the core's classes and
 * back. The core orders its classes by importance and knows nothing of
 * Apple's numbers; this is the only place that knows both. */
#pragma once

#include "core/qclass.h"
#include "qos/qos.h"

/* QOS_CLASS_DEFAULT gives QCLASS_UTILITY, QOS_CLASS_UNSPECIFIED gives
 * QCLASS_UNSPECIFIED. -EINVAL for any value Apple's header does not have. */
int class_from_apple(qos_class_t c, QClass *ret);

/* Never QOS_CLASS_DEFAULT: the utility class reads back as UTILITY. */
qos_class_t class_to_apple(QClass c);

/* A class and relative priority a thread can be set to: -EINVAL unless c
 * is a class (not UNSPECIFIED) and relpri is in range. */
int class_request_from_apple(qos_class_t c, int relpri, QClass *ret);
