/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosd's D-Bus names, shared by the daemon that serves them and the
 * clients (libqos, qosctl) that call them. The interface is described in
 * data/org.qosd.QoS1.xml, the broker method's contract in
 * data/org.qosd.QoS1.Broker.md. */
#pragma once

#define QOS_BUS_NAME "org.qosd.QoS1"
#define QOS_BUS_PATH "/org/qosd/QoS1"
#define QOS_BUS_INTERFACE "org.qosd.QoS1.Manager"

/* SetThreadClass(i tid, t start_time, s class, i relative_priority)
 *   -> (s granted_class, s reason) */
#define QOS_BUS_METHOD_SET_THREAD_CLASS "SetThreadClass"
#define QOS_BUS_SIGNATURE_SET_THREAD_CLASS "itsi"

#define QOS_BUS_ERROR_NO_SUCH_TASK "org.qosd.QoS1.Error.NoSuchTask"
#define QOS_BUS_ERROR_INVALID_CONFIG "org.qosd.QoS1.Error.InvalidConfig"
#define QOS_BUS_ERROR_PROFILE "org.qosd.QoS1.Error.Profile"
#define QOS_BUS_ERROR_RATE_LIMITED "org.qosd.QoS1.Error.RateLimited"
#define QOS_BUS_ERROR_REALTIME "org.qosd.QoS1.Error.RealTime"
