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

/* BeginOverride(i waiter_tid, t waiter_start, i owner_tid, t owner_start, s class)
 *   -> (t override_id, s lent_class)
 * EndOverride(t override_id) -> ()
 * The caller lends the owner the lower of class and the waiter's current
 * class; both threads must be the caller's. See data/org.qosd.QoS1.Broker.md. */
#define QOS_BUS_METHOD_BEGIN_OVERRIDE "BeginOverride"
#define QOS_BUS_SIGNATURE_BEGIN_OVERRIDE "itits"
/* BeginLockOverride(i waiter_tid, t waiter_start, i owner_tid, t owner_start,
 *                   s class, t lock) -> (t override_id, s lent_class, ai chain)
 * The same, where the waiter sleeps on lock (its address), held by owner:
 * while the override lasts, qosd knows the waiter waits there, and lends
 * on along such waits (chain: the further owners raised). */
#define QOS_BUS_METHOD_BEGIN_LOCK_OVERRIDE "BeginLockOverride"
#define QOS_BUS_SIGNATURE_BEGIN_LOCK_OVERRIDE "ititst"
#define QOS_BUS_METHOD_END_OVERRIDE "EndOverride"
#define QOS_BUS_SIGNATURE_END_OVERRIDE "t"

/* ListLoans() -> a(iiiitsss): (pid, owner_tid, lender_tid, via_tid, lock,
 * lent_class, owner_base_class, lender_class) for every override qosd
 * holds in the caller's processes (root: all). via_tid 0: lent directly
 * by a lender sleeping on lock; else along a chain, where via_tid sleeps
 * on lock. lock 0: not known. */
#define QOS_BUS_METHOD_LIST_LOANS "ListLoans"
#define QOS_BUS_SIGNATURE_LOAN_ROW "(iiiitsss)"

/* ListTasks(b all) -> a(iisssss): a list longer than qosd's ListTasksMax=
 * ends with one row of PID 0 and state QOS_LIST_TASKS_TRUNCATED. */
#define QOS_LIST_TASKS_TRUNCATED "truncated"

#define QOS_BUS_ERROR_NO_SUCH_TASK "org.qosd.QoS1.Error.NoSuchTask"
#define QOS_BUS_ERROR_INVALID_CONFIG "org.qosd.QoS1.Error.InvalidConfig"
#define QOS_BUS_ERROR_PROFILE "org.qosd.QoS1.Error.Profile"
#define QOS_BUS_ERROR_RATE_LIMITED "org.qosd.QoS1.Error.RateLimited"
#define QOS_BUS_ERROR_REALTIME "org.qosd.QoS1.Error.RealTime"
