/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Apple's QoS function names, for porting code written against
 * <pthread/qos.h> and <sys/qos.h>. Include this instead of those headers;
 * it includes <qos/qos.h>, which has qos_class_t, the QOS_CLASS_* values,
 * QOS_MIN_RELATIVE_PRIORITY, qos_class_self() and qos_class_main().
 *
 * As on Apple's systems these functions return 0 or a positive errno value
 * (not a negative one, as the rest of libqos does), and leave errno alone.
 * What differs, because Linux is not Darwin:
 *
 *   - Raising a class needs privilege on Linux. Without it the request
 *     goes to qosd, which may hold it below what was asked (the call still
 *     returns 0, as Apple's does, and qosd raises the thread later) or be
 *     missing: then ENOTCONN, and the thread is unchanged.
 *   - QOS_CLASS_DEFAULT is the utility class (the kernel's defaults), and
 *     the relative priority maps to nice as described in <qos/qos.h>.
 *   - pthread_create() cannot see a class in an attribute object: create
 *     the thread with qos_pthread_create(), and destroy the object with
 *     qos_attr_destroy() (see "New threads" in <qos/qos.h>).
 *   - A thread that uses SCHED_FIFO, SCHED_RR or SCHED_DEADLINE has left
 *     the QoS system, as a thread that called pthread_setschedparam() has
 *     on Apple's: setting its class fails with EPERM and reading it gives
 *     QOS_CLASS_UNSPECIFIED.
 *   - The classes read back are the classes the kernel reports, which can
 *     be lower than the class requested while qosd holds a request.
 */
#ifndef QOS_DARWIN_H
#define QOS_DARWIN_H

#include <qos/qos.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pthread_set_qos_class_self_np - set the class of the calling thread
 *
 * qos_self_set_class(). Returns 0 (also when qosd holds the request),
 * EINVAL for QOS_CLASS_UNSPECIFIED, an unknown class or a relative
 * priority outside 0..QOS_MIN_RELATIVE_PRIORITY, EPERM for a real-time
 * thread or when qosd refuses, ENOTCONN when the change needs privilege
 * and qosd is not reachable, or another errno value as listed for
 * qos_self_set_class().
 */
int pthread_set_qos_class_self_np(qos_class_t __qos_class, int __relative_priority);

/*
 * pthread_get_qos_class_np - the class and relative priority of a thread
 * @__pthread: a thread of the calling process
 * @__qos_class, @__relative_priority: outputs; either may be NULL
 *
 * qos_pthread_get_class(). Returns 0, or ESRCH if the thread has exited.
 */
int pthread_get_qos_class_np(pthread_t __pthread, qos_class_t *__qos_class, int *__relative_priority);

/*
 * pthread_attr_set_qos_class_np - the class of threads created with @__attr
 *
 * qos_attr_set_class(); takes effect with qos_pthread_create() only.
 * Returns 0, EINVAL for QOS_CLASS_UNSPECIFIED (as Apple's does), an
 * unknown class or a relative priority out of range, or ENOSPC when 128
 * attribute objects already carry a class.
 */
int pthread_attr_set_qos_class_np(pthread_attr_t *__attr, qos_class_t __qos_class, int __relative_priority);

/*
 * pthread_attr_get_qos_class_np - the class recorded for @__attr
 *
 * qos_attr_get_class(): QOS_CLASS_UNSPECIFIED and 0 if none. Returns 0,
 * or EINVAL for a NULL @__attr.
 */
int pthread_attr_get_qos_class_np(pthread_attr_t *__attr, qos_class_t *__qos_class, int *__relative_priority);

#ifdef __cplusplus
}
#endif

#endif /* QOS_DARWIN_H */
