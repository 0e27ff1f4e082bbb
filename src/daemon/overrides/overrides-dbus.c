/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "caller/bus-args.h"
#include "core/bus-protocol.h"
#include "caller/caller-identity.h"
#include "caller/caller-tid.h"
#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "core/macro.h"
#include "overrides/override-book.h"
#include "overrides/overrides-dbus.h"
#include "overrides/overrides.h"
#include "state/query-admit.h"
#include "core/proc.h"
#include "core/task-ref.h"

/* The thread tid, started at start, belongs to the caller's process, and
 * that process to the caller's user. */
static int check_own(const Caller *caller, pid_t tid, uint64_t start, TaskRef *ret) {
        pid_t tgid;
        uid_t uid;
        if (proc_tgid(tid, &tgid) < 0)
                return -ESRCH;
        if (tgid != caller->pid)
                return -EPERM;
        if (proc_uid(tgid, &uid) < 0)
                return -ESRCH;
        if (uid != caller->uid)
                return -EPERM;
        if (start == 0)
                return -EINVAL;
        return task_ref_open(tid, start, ret);
}

/* Waiter and owner, both the caller's own, pinned; from a sandbox both are
 * named by its namespace's numbers (caller-tid.h). */
static int pin_pair(const Caller *caller, BeginOverrideArgs *a, TaskRef *ret_waiter, TaskRef *ret_owner) {
        if (caller_resolve_tid(caller, a->waiter, &a->waiter) < 0 || caller_resolve_tid(caller, a->owner, &a->owner) < 0)
                return -EPERM;
        int r = check_own(caller, a->waiter, a->waiter_start, ret_waiter);
        return r < 0 ? r : check_own(caller, a->owner, a->owner_start, ret_owner);
}

static int refuse_limit(Manager *m, sd_bus_error *error, OverrideLimit limit, uid_t uid) {
        override_count_limited(m);
        switch (limit) {
        case OVERRIDE_LIMIT_CONNECTION:
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "This connection holds %d overrides, the most qosd allows one connection.",
                                         OVERRIDES_PER_CONNECTION);
        case OVERRIDE_LIMIT_USER:
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "User %u holds %d overrides, the most qosd allows one user.",
                                         (unsigned) uid, OVERRIDES_PER_USER);
        default:
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "qosd keeps its last %d file descriptors for itself; "
                                         "no override on another thread until some end.",
                                         OVERRIDE_FD_RESERVE);
        }
}

static int refuse(sd_bus_error *error, int r, pid_t waiter, pid_t owner) {
        switch (r) {
        case -ESRCH:
                return sd_bus_error_setf(error, QOS_BUS_ERROR_NO_SUCH_TASK,
                                         "Thread %d or %d does not exist (or its start time differs).",
                                         waiter, owner);
        case -EPERM:
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "Threads %d and %d must both belong to the caller.", waiter, owner);
        case -EBUSY:
                return sd_bus_error_setf(error, QOS_BUS_ERROR_REALTIME,
                                         "Thread %d is real-time scheduled; qosd leaves it alone.", owner);
        case -EINVAL:
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid arguments.");
        default:
                return sd_bus_error_set_errnof(error, r, "Cannot begin the override: %s", strerror(-r));
        }
}

/* BeginOverride and BeginLockOverride: one body, the lock optional. */
static int begin_override(sd_bus_message *msg, Manager *m, bool with_lock, sd_bus_error *error) {
        BeginOverrideArgs a;
        TaskRef wref = TASK_REF_NULL, oref = TASK_REF_NULL;
        TaskAttr wattr;
        OverrideClient *client;
        Caller caller;
        pid_t hops[OVERRIDE_CHAIN_MAX - 1];
        size_t n_hops = 0;
        uint64_t id;
        int r;

        r = bus_args_read_begin_override(msg, with_lock, &a, error);
        if (r < 0)
                return r;
        if (!override_book(m))
                return -ENOMEM;
        /* Who asks, as SetThreadClass knows it: the bus's PID only if that
         * process is the one that opened the connection, and its uid. */
        r = caller_identify_or_refuse(&m->callers, msg, &caller, error);
        if (r < 0)
                return r;
        r = override_client_get(m, msg, caller.uid, &client);
        if (r < 0)
                return refuse(error, r, a.waiter, a.owner);
        /* Before any work on the threads: a client at its limit costs a
         * lookup per call. */
        OverrideLimit limit = override_limit(m, client);
        if (limit != OVERRIDE_LIMIT_NONE)
                return refuse_limit(m, error, limit, caller.uid);

        /* Both threads the caller's own, pinned by start time; the waiter
         * lends what it has now - never more. A waiter that names its lock
         * lends no more than its own class either (its base, if it was lent
         * more): what it was lent reaches the owner along the chain. */
        r = pin_pair(&caller, &a, &wref, &oref);
        if (r >= 0)
                r = task_ref_read_attr(&wref, &wattr);
        QClass has = r >= 0 ? override_lendable(class_from_attr(&wattr, kernel_caps())) : QCLASS_UNSPECIFIED;
        if (r >= 0 && with_lock)
                has = qclass_min(has, override_lendable(override_own_class(m, &wref, &wattr)));
        task_ref_close(&wref);
        if (r < 0) {
                task_ref_close(&oref);
                return refuse(error, r, a.waiter, a.owner);
        }
        OverrideLoan loan = { .tgid = caller.pid, .waiter = a.waiter, .waiter_start = a.waiter_start,
                              .lock = a.lock, .asked = a.class, .c = qclass_min(a.class, has) };

        r = override_begin(m, client, &oref, &loan, &id, hops, &n_hops);
        if (r == -EMFILE)
                return refuse_limit(m, error, OVERRIDE_LIMIT_FDS, caller.uid);
        if (r < 0)
                return refuse(error, r, a.waiter, a.owner);
        /* As for SetThreadClass: the process judged must still be the one
         * that asked, or the override was lent on someone else's word. */
        if (caller_recheck(&caller) < 0) {
                pid_t tid;
                (void) override_end(m, sd_bus_message_get_sender(msg), id, &tid);
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                        "The caller exited while its override was begun.");
        }
        log_debug("override %" PRIu64 ": thread %d lends %s to thread %d (lock %#" PRIx64 ", %zu more on its chain)",
                  id, a.waiter, qclass_to_string(loan.c), a.owner, a.lock, n_hops);
        if (!with_lock)
                return sd_bus_reply_method_return(msg, "ts", id, qclass_to_string(loan.c));

        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "ts", id, qclass_to_string(loan.c));
        if (r >= 0) {
                int32_t tids[OVERRIDE_CHAIN_MAX - 1];
                for (size_t i = 0; i < n_hops; i++)
                        tids[i] = hops[i];
                r = sd_bus_message_append_array(reply, 'i', tids, n_hops * sizeof *tids);
        }
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

int overrides_method_begin_override(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return begin_override(msg, userdata, false, error);
}

int overrides_method_begin_lock_override(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return begin_override(msg, userdata, true, error);
}

int overrides_method_end_override(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        Caller caller;
        uint64_t id;
        pid_t tid;
        int r = sd_bus_message_read(msg, QOS_BUS_SIGNATURE_END_OVERRIDE, &id);
        if (r < 0)
                return r;
        /* A connection whose process is gone has nothing left to end: its
         * threads went with it, and its PID may be someone else's. */
        r = caller_identify_or_refuse(&m->callers, msg, &caller, error);
        if (r < 0)
                return r;
        /* Only the connection that began an override may end it. */
        r = override_end(m, sd_bus_message_get_sender(msg), id, &tid);
        if (r == -ENOENT)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "No override %" PRIu64 " of yours.",
                                         id);
        if (r == -ESRCH)
                return sd_bus_error_setf(error, QOS_BUS_ERROR_NO_SUCH_TASK,
                                         "Thread %d has exited; override %" PRIu64 " ended with it.", (int) tid,
                                         id);
        return sd_bus_reply_method_return(msg, "");
}

/* Every loan qosd holds in the caller's own processes (root: all of
 * them): lock addresses are the process's memory layout, not for others. */
int overrides_method_list_loans(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ LoanInfo *loans = NULL;
        size_t n = 0;
        Caller caller;
        int r = query_admit(m, msg, QUERY_LIST_TASKS, &caller, error);
        if (r < 0)
                return r;
        r = override_loans(m, 0, 0, &loans, &n);
        if (r >= 0)
                r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', QOS_BUS_SIGNATURE_LOAN_ROW);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const LoanInfo *l = &loans[i];
                if (caller.uid != 0 && proc_owned_by(l->pid, caller.uid) <= 0)
                        continue;
                r = sd_bus_message_append(reply, QOS_BUS_SIGNATURE_LOAN_ROW, (int32_t) l->pid, (int32_t) l->owner,
                                          (int32_t) l->lender, (int32_t) l->via, l->lock, qclass_to_string(l->c),
                                          qclass_to_string(l->base_class), qclass_to_string(l->lender_class));
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}
