/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libqos: quality-of-service classes for threads on Linux.
 *
 * A thread says what it is for; the system turns that into scheduler
 * settings (policy, nice, EEVDF slice, I/O priority, timer slack, and
 * whatever else the running kernel has). The class names and numeric values
 * are Apple's, so code written against <pthread/qos.h> ports with few
 * changes; <qos/darwin.h> adds Apple's function names on top of this file.
 *
 * Fast path and slow path. What the kernel lets an unprivileged thread do
 * to its own process - lower a class, or move within one downwards - is
 * done directly, with a few system calls and no daemon. Anything that
 * needs privilege (lower nice, leaving SCHED_IDLE) is asked of qosd over
 * the system bus; qosd applies its policy (foreground, caps, rate limits)
 * and answers. Which path a request takes is decided from the thread's
 * current settings before anything is changed, so a request either takes
 * effect as a whole or leaves the thread as it was. Callers with
 * CAP_SYS_NICE never need qosd.
 *
 * Return values. Functions returning int return 0 (or a documented
 * positive value) on success and a negative errno code on failure, as
 * libbpf and libinput do; errno itself is left alone. On failure the
 * thread is unchanged, except where -ETIMEDOUT says otherwise.
 *
 * Threads. Every function is thread-safe. The functions act on threads of
 * the calling process only: the calling thread, a thread named by its
 * kernel TID (gettid(2)), or one named by its pthread_t.
 *
 * Link with: pkg-config --cflags --libs libqos
 */
#ifndef QOS_QOS_H
#define QOS_QOS_H

#include <pthread.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The classes, with Apple's values. Higher values are more important.
 *
 * QOS_CLASS_USER_INTERACTIVE  what the user sees right now: UI, audio, input
 * QOS_CLASS_USER_INITIATED    work the user is actively waiting for
 * QOS_CLASS_DEFAULT           accepted as input, means QOS_CLASS_UTILITY
 * QOS_CLASS_UTILITY           should happen promptly, nobody is watching;
 *                             exactly the kernel's defaults (SCHED_NORMAL,
 *                             nice 0, default slice), so an untouched
 *                             thread is a utility thread
 * QOS_CLASS_BACKGROUND        no latency needs: indexing, backups, builds
 * QOS_CLASS_UNSPECIFIED       no class: returned for a thread whose settings
 *                             match no class (changed by hand or by another
 *                             tool); never accepted when setting a class
 *
 * On Apple's systems DEFAULT lies between USER_INITIATED and UTILITY. Here
 * the kernel's defaults are the utility class, so DEFAULT and UTILITY are
 * the same class; reading a class back always says QOS_CLASS_UTILITY.
 * The enumeration is 32 bits wide, as Apple's qos_class_t is.
 */
typedef enum qos_class {
        QOS_CLASS_USER_INTERACTIVE = 0x21,
        QOS_CLASS_USER_INITIATED = 0x19,
        QOS_CLASS_DEFAULT = 0x15,
        QOS_CLASS_UTILITY = 0x11,
        QOS_CLASS_BACKGROUND = 0x09,
        QOS_CLASS_UNSPECIFIED = 0x00,
} qos_class_t;

/*
 * Relative priority: a position inside a class, 0 (the class itself, the
 * most important position) down to QOS_MIN_RELATIVE_PRIORITY, as in Apple's
 * API. It raises the thread's nice by a few steps and never as far as the
 * next lower class, so a thread of a higher class always stays ahead of
 * every thread of a lower one (Apple lets a low relative priority overlap
 * the class below; libqos does not):
 *
 *   user-interactive  nice -10 .. -6   (0..-3: -10, -4..-6: -9, ..., -13..-15: -6)
 *   user-initiated    nice  -5 .. -1   (same steps)
 *   utility           nice   0 .. 15   (one nice value per step: -N is nice N)
 *   background        SCHED_IDLE: accepted and ignored (all idle threads
 *                     weigh the same); reads back as 0
 *
 * Reading a thread back gives the relative priority nearest 0 that maps to
 * its nice, so a value set can read back closer to 0 (-2 in
 * user-interactive reads back as 0). Moving down within a class needs no
 * privilege; moving up does, like a promotion.
 */
#define QOS_MIN_RELATIVE_PRIORITY (-15)

/*
 * Returned by the set functions (a success): qosd accepted the request but
 * holds the thread below the class asked for, because its policy says so
 * now (the process is not in the foreground, or the class is above the
 * app's or user's cap). The thread has the class qosd granted. qosd keeps
 * the request and raises the thread itself when the policy allows, without
 * the application asking again. `qosctl explain TID` says why.
 */
#define QOS_REQUEST_HELD 1

/* ------------------------------------------------------------------ */
/* Classes                                                             */

/*
 * qos_class_to_string - the canonical name of a class
 *
 * Returns "user-interactive", "user-initiated", "utility" (also for
 * QOS_CLASS_DEFAULT), "background" or "unspecified" - the names qosctl
 * and the configuration files use - or NULL for any other value. The
 * string is static.
 */
const char *qos_class_to_string(qos_class_t qos_class);

/*
 * qos_class_from_string - parse a class name
 * @s: "user-interactive", "user-initiated", "utility", "background", the
 *     short forms "ui", "in", "ut", "bg", "default", or Apple's spellings
 *     ("QOS_CLASS_USER_INTERACTIVE", ...); case-insensitive, '-' and '_'
 *     alike. "unspecified" is accepted and gives QOS_CLASS_UNSPECIFIED.
 * @ret: where to store the class
 *
 * Returns 0, or -EINVAL if @s names no class (@ret is not written).
 */
int qos_class_from_string(const char *s, qos_class_t *ret);

/*
 * qos_class_self - the class of the calling thread
 *
 * As the kernel reports it now: the class whose settings the thread has.
 * While qosd holds a request (QOS_REQUEST_HELD) this is the class granted,
 * not the one asked for. Returns QOS_CLASS_UNSPECIFIED if the thread's
 * settings match no class, or if they cannot be read.
 */
qos_class_t qos_class_self(void);

/*
 * qos_class_main - the class the process's main thread started with
 *
 * As on Apple's systems, this is the initial class chosen for the process
 * (by qosd's rules, `qosctl run`, or inherited from the parent), not the
 * main thread's class at the time of the call: it is read once, when
 * libqos is loaded, and later changes do not affect it. If libqos is
 * loaded with dlopen() it is the class at that moment. Returns
 * QOS_CLASS_UNSPECIFIED if the settings matched no class.
 *
 * Typical use: give worker threads the class of the main thread,
 * qos_attr_set_class(&attr, qos_class_main(), 0).
 */
qos_class_t qos_class_main(void);

/* ------------------------------------------------------------------ */
/* Existing threads                                                    */

/*
 * qos_self_set_class - set the class of the calling thread
 * @qos_class: any class but QOS_CLASS_UNSPECIFIED
 * @relative_priority: 0 .. QOS_MIN_RELATIVE_PRIORITY
 *
 * Applied directly when the kernel allows it (the same class or a lower
 * one, or a lower position within the class); otherwise asked of qosd.
 *
 * Returns:
 *   0                 the thread has the class (and relative priority)
 *   QOS_REQUEST_HELD  qosd holds the thread below the class asked for; see
 *                     QOS_REQUEST_HELD
 *   -EINVAL           @qos_class is not a class, or @relative_priority is
 *                     out of range
 *   -EBUSY            the thread is real-time or deadline scheduled
 *                     (SCHED_FIFO, SCHED_RR, SCHED_DEADLINE); libqos and
 *                     qosd leave such threads alone
 *   -ENOTCONN         the change needs privilege and qosd is not reachable:
 *                     no system bus, or qosd not running on it
 *   -EOPNOTSUPP       the change needs privilege and the qosd running does
 *                     not broker requests (an older version)
 *   -EPERM            qosd (or the bus policy) refused the request
 *   -EAGAIN           qosd refused the request because this process sent
 *                     too many; try again later, less often
 *   -ETIMEDOUT        qosd did not answer within a second. The request may
 *                     still be applied: read the class back
 *   -EPROTO           qosd's answer made no sense
 *   other             from the kernel or the bus library (-ENOMEM, ...)
 * On every failure but -ETIMEDOUT the thread is unchanged.
 *
 * A caller with CAP_SYS_NICE (root) applies every class directly and is
 * not subject to qosd's policy.
 */
int qos_self_set_class(qos_class_t qos_class, int relative_priority);

/*
 * qos_self_get_class - the class and relative priority of the calling thread
 * @qos_class: where to store the class (QOS_CLASS_UNSPECIFIED if the
 *             thread's settings match no class); may be NULL
 * @relative_priority: where to store the relative priority (0 when the
 *             class is unspecified or background); may be NULL
 *
 * Reads what the kernel reports now (see qos_class_self()).
 * Returns 0, or a negative errno code if the settings cannot be read.
 */
int qos_self_get_class(qos_class_t *qos_class, int *relative_priority);

/*
 * qos_thread_set_class - set the class of a thread of this process by TID
 * @tid: the thread's kernel ID (gettid(2)); must belong to the calling
 *       process
 *
 * Like qos_self_set_class(), and -ESRCH if no thread @tid exists in this
 * process. A TID is recycled by the kernel once its thread has exited and
 * been joined: the caller must know the thread is still alive.
 *
 * One limit: the kernel lets a thread set another thread's timer slack
 * only with CAP_SYS_NICE, so without it the target keeps its timer slack
 * (policy, nice, slice and I/O priority are set). A thread that sets its
 * own class gets all of them.
 */
int qos_thread_set_class(pid_t tid, qos_class_t qos_class, int relative_priority);

/*
 * qos_thread_get_class - the class of a thread of this process by TID
 *
 * Like qos_self_get_class(); -ESRCH if no thread @tid exists in this
 * process.
 */
int qos_thread_get_class(pid_t tid, qos_class_t *qos_class, int *relative_priority);

/*
 * qos_pthread_set_class - set the class of a thread of this process
 * @thread: a thread that has not been joined (or exited, if detached)
 *
 * qos_thread_set_class() for the kernel thread behind @thread. Returns
 * -ESRCH if that thread has already exited. libqos finds the TID through
 * pthread_getcpuclockid(3): the CPU-time clock the C library returns for
 * a thread encodes its TID, in the kernel's documented format.
 */
int qos_pthread_set_class(pthread_t thread, qos_class_t qos_class, int relative_priority);

/*
 * qos_pthread_get_class - the class of a thread of this process
 *
 * Like qos_thread_get_class(), for @thread.
 */
int qos_pthread_get_class(pthread_t thread, qos_class_t *qos_class, int *relative_priority);

/* ------------------------------------------------------------------ */
/* New threads                                                         */

/*
 * The C library has no place for a class in a pthread_attr_t, and its
 * pthread_create() would not know what to do with one. libqos keeps the
 * class of an attribute object in a table of its own, keyed by the
 * object's address, and qos_pthread_create() applies it in the new thread
 * before the start routine runs (which is when Apple's systems apply it).
 *
 * Lifetime rule: an entry lives until qos_attr_destroy(), qos_attr_init()
 * on the same object, or qos_attr_set_class(attr, QOS_CLASS_UNSPECIFIED,
 * 0). An object destroyed with plain pthread_attr_destroy() leaves its
 * entry behind, and a later attribute object at the same address (common
 * for objects on the stack) would inherit the class. Use qos_attr_init()
 * and qos_attr_destroy() on objects that carry a class. The table holds
 * 128 entries at a time.
 *
 * Only qos_pthread_create() reads the table: pthread_create() with the
 * same attribute object creates a thread without a class, which inherits
 * its creator's settings (the kernel's rule; user-interactive and
 * user-initiated threads have SCHED_RESET_ON_FORK, so their children
 * start at utility).
 */

/*
 * qos_attr_init - pthread_attr_init(3), and forget any class recorded for
 * an earlier object at the same address
 *
 * Returns 0 or a negative errno code.
 */
int qos_attr_init(pthread_attr_t *attr);

/*
 * qos_attr_destroy - forget the class of @attr, then pthread_attr_destroy(3)
 *
 * Returns 0 or a negative errno code.
 */
int qos_attr_destroy(pthread_attr_t *attr);

/*
 * qos_attr_set_class - record the class a thread created with @attr gets
 * @qos_class: any class; QOS_CLASS_UNSPECIFIED removes the entry (the
 *             thread is created without a class)
 * @relative_priority: 0 .. QOS_MIN_RELATIVE_PRIORITY
 *
 * Nothing is checked against privilege here; qos_pthread_create() does
 * that when the thread starts.
 * Returns 0, -EINVAL for an invalid class or relative priority or a NULL
 * @attr, or -ENOSPC if 128 attribute objects already carry a class.
 */
int qos_attr_set_class(pthread_attr_t *attr, qos_class_t qos_class, int relative_priority);

/*
 * qos_attr_get_class - the class recorded for @attr
 * @qos_class: QOS_CLASS_UNSPECIFIED if none; may be NULL
 * @relative_priority: 0 if none; may be NULL
 *
 * Returns 0, or -EINVAL for a NULL @attr.
 */
int qos_attr_get_class(const pthread_attr_t *attr, qos_class_t *qos_class, int *relative_priority);

/*
 * qos_pthread_create - pthread_create(3) with the class recorded for @attr
 *
 * Without a class recorded (or with @attr NULL) this is pthread_create().
 * With one, the new thread sets its class with qos_self_set_class() before
 * @start_routine runs, and qos_pthread_create() waits for that, so when it
 * returns 0 the thread runs in its class.
 *
 * Returns 0 or QOS_REQUEST_HELD as qos_self_set_class() does, with the
 * thread created. If the class cannot be applied, the thread ends without
 * running @start_routine and the error of qos_self_set_class() is
 * returned (-ENOTCONN when a class above the creator's needs qosd and qosd
 * is not running, ...): as with pthread_create(), no thread exists then and
 * *@thread is not written. Errors of pthread_create() itself are returned
 * negated (-EAGAIN, -EPERM, -EINVAL).
 */
int qos_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start_routine)(void *),
                       void *arg);

/* ------------------------------------------------------------------ */
/* Overrides                                                           */

/*
 * An override raises a thread of this process to a class until it is
 * ended: the mechanism behind performance inheritance (a thread waiting
 * for another lends it its class), also usable on its own. A thread's
 * *base* is what it had when its first override began; overrides nest and
 * stack, the thread runs at the highest of its base class and every active
 * override, and ending the last one restores the base exactly, knob by
 * knob (also a setting that matches no class). An override below the
 * thread's class changes nothing until the higher ones end. A class set
 * with the qos_*_set_class() calls while overrides are active is replaced
 * when the last one ends: set a thread's class while it has none.
 *
 * Privilege. With CAP_SYS_NICE libqos applies overrides itself. Without
 * it, the calling thread lends its own class through qosd (the
 * BeginOverride method): qosd checks that both threads belong to the
 * caller, raises the thread to the lower of @qos_class and the caller's
 * current class, and drops the override when either thread or the
 * caller's bus connection goes away. That costs a bus round trip (see
 * docs/inheritance.md for figures), so unprivileged code should use it for
 * contended, cross-class waits only - which is what qos_mutex_t does.
 */
typedef struct qos_override qos_override_t;

/*
 * qos_override_begin - raise a thread of this process to a class
 * @tid: the thread (gettid(2)), which may be the caller
 * @qos_class: any class but QOS_CLASS_UNSPECIFIED
 * @ret: the handle to end the override with
 *
 * Returns 0, -EINVAL (bad class or NULL @ret), -ESRCH (no such thread in
 * this process), -EBUSY (a real-time thread), -ENOMEM, or, without
 * CAP_SYS_NICE, the errors of qos_self_set_class() for a request to qosd.
 */
int qos_override_begin(pid_t tid, qos_class_t qos_class, qos_override_t **ret);

/*
 * qos_override_begin_from - raise a thread to the class another thread has
 * @lender: a thread of this process whose class is lent (it may be asleep)
 * @tid: the thread raised, which may be the caller
 * @qos_class: the most to lend; the loan is the lower of this and the
 *             class @lender runs at now
 * @ret: the handle to end the override with
 *
 * For a thread that knows it holds what a sleeping thread will need next:
 * a condition variable's signaller that holds the mutex its waiter must
 * take again on waking. Returns what qos_override_begin() returns, and
 * -EPERM where @lender's settings match no class.
 */
int qos_override_begin_from(pid_t lender, pid_t tid, qos_class_t qos_class, qos_override_t **ret);

/*
 * qos_pthread_override_begin - qos_override_begin() for a pthread_t
 */
int qos_pthread_override_begin(pthread_t thread, qos_class_t qos_class, qos_override_t **ret);

/*
 * qos_override_end - end an override and free its handle
 *
 * Ending overrides in any order is fine. Returns 0, or -ESRCH if the
 * thread has exited meanwhile (through qosd: also if qosd has restarted
 * since; the handle is freed all the same and nothing is left behind), or
 * the error of restoring the base or of the call to qosd.
 */
int qos_override_end(qos_override_t *override);

/* ------------------------------------------------------------------ */
/* A mutex that lends its waiters' class to its owner                  */

/*
 * qos_mutex_t - a process-private mutex with performance inheritance
 *
 * Its word holds the owner's TID and a waiters bit. Lock and unlock
 * without contention are one atomic instruction each and no system call.
 * A thread that has to wait, and whose class is above the owner's, begins
 * an override of the owner at its own class before it sleeps; the owner's
 * unlock ends every override lent to it through this mutex, also those of
 * waiters that have timed out meanwhile. If the owner is itself waiting
 * on another qos_mutex_t, the class is lent along the chain, at most
 * QOS_MUTEX_CHAIN_MAX owners deep (a deadlock cycle therefore ends too).
 *
 * Not recursive, not robust (a thread that exits holding one leaves it
 * locked, and what was lent to it with it), not process-shared. Unlocking
 * a mutex the caller does not hold is undefined, as for
 * PTHREAD_MUTEX_NORMAL. Initialise with QOS_MUTEX_INITIALIZER or
 * qos_mutex_init(). Functions return 0 or a negative errno code.
 */
typedef struct qos_mutex {
        unsigned int __word;
        unsigned int __reserved;
        void *__lent;
} qos_mutex_t;

#define QOS_MUTEX_INITIALIZER { 0, 0, 0 }
#define QOS_MUTEX_CHAIN_MAX 8

int qos_mutex_init(qos_mutex_t *mutex);
/* -EBUSY if it is locked. */
int qos_mutex_destroy(qos_mutex_t *mutex);
/* -EDEADLK if the caller holds it already. */
int qos_mutex_lock(qos_mutex_t *mutex);
/* -EBUSY if another thread holds it; never waits, never lends. */
int qos_mutex_trylock(qos_mutex_t *mutex);
/* Waits until @abstime (CLOCK_REALTIME, as pthread_mutex_timedlock(3));
 * -ETIMEDOUT then, -EINVAL for a bad @abstime. What the caller lent
 * stays with the owner until it unlocks. */
int qos_mutex_timedlock(qos_mutex_t *mutex, const struct timespec *abstime);
int qos_mutex_unlock(qos_mutex_t *mutex);

/*
 * qos_cond_t - a condition variable for qos_mutex_t
 *
 * pthread_cond_t's contract: wait atomically releases the mutex and
 * sleeps until signalled (or spuriously), then locks the mutex again,
 * lending as qos_mutex_lock() does. Process-private; CLOCK_REALTIME.
 */
typedef struct qos_cond {
        unsigned int __seq;
        unsigned int __reserved;
} qos_cond_t;

#define QOS_COND_INITIALIZER { 0, 0 }

int qos_cond_init(qos_cond_t *cond);
int qos_cond_destroy(qos_cond_t *cond);
int qos_cond_wait(qos_cond_t *cond, qos_mutex_t *mutex);
/* -ETIMEDOUT at @abstime, with the mutex locked again. */
int qos_cond_timedwait(qos_cond_t *cond, qos_mutex_t *mutex, const struct timespec *abstime);
int qos_cond_signal(qos_cond_t *cond);
int qos_cond_broadcast(qos_cond_t *cond);

#ifdef __cplusplus
}
#endif

#endif /* QOS_QOS_H */
