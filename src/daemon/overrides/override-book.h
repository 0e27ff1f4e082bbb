/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What qosd holds for the overrides lent through it (overrides-dbus.c is the
 * bus side): one record per override, one owner per thread that has
 * overrides (pinned, with the settings it had before the first), one
 * client per bus connection that holds some, and a tally per user.
 *
 * An owner is acted on only after its pin is checked (the pidfd where the
 * kernel has thread pidfds, the start time where it has not), before and
 * after each apply, so a TID the kernel gave to another task never gets
 * the owner's override or its saved settings. Owners that exit are dropped
 * on the proc connector's EXIT for their TID, on every kernel, and by the
 * sweep after lost events.
 *
 * Limits, so that no client can grow qosd or spend its file descriptors
 * (an owner holds a pidfd on kernels with thread pidfds): overrides per
 * connection and per user, and a reserve of descriptors that overrides
 * never take, kept for qosd's own /proc reads. */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "state/manager.h"
#include "core/qclass.h"
#include "core/task-apply.h"
#include "core/task-ref.h"

/* Enough for every thread of a large program to wait on a lock at once. */
#define OVERRIDES_PER_CONNECTION 256
/* A user's programs together: a few such programs, not without bound. */
#define OVERRIDES_PER_USER 1024
/* File descriptors below RLIMIT_NOFILE that overrides leave to the rest of
 * qosd: its /proc reads (two or three at a time), the bus, the proc
 * connector, inotify, and up to 64 connections to systemd managers. */
#define OVERRIDE_FD_RESERVE 256
/* Owners one loan reaches along a chain of locks, the first included:
 * libqos's QOS_MUTEX_CHAIN_MAX, so a lender gets as far through qosd as
 * it would on its own. A cycle stops where it closes. */
#define OVERRIDE_CHAIN_MAX 8

typedef struct OverrideClient OverrideClient;

typedef enum OverrideLimit {
        OVERRIDE_LIMIT_NONE,
        OVERRIDE_LIMIT_CONNECTION,
        OVERRIDE_LIMIT_USER,
        OVERRIDE_LIMIT_FDS,
} OverrideLimit;

/* qosd's book, made on first use; NULL without memory. */
Overrides *override_book(Manager *m);

/* The client for msg's sender (tracked: its overrides end with its
 * connection), made on its first override; uid is the caller's. */
int override_client_get(Manager *m, sd_bus_message *msg, uid_t uid, OverrideClient **ret);

/* Which limit a new override for this client would pass, if any. */
OverrideLimit override_limit(Manager *m, const OverrideClient *c);

/* Who lends what: the caller's process, its waiting thread (pinned by its
 * start time), the class lent, and the lock the waiter sleeps on (its
 * address in the process; 0 when the lender did not say). */
typedef struct OverrideLoan {
        pid_t tgid;
        pid_t waiter;
        uint64_t waiter_start;
        uint64_t lock;
        QClass asked;           /* what the caller lends */
        QClass c;               /* asked, capped at what the waiter has now */
} OverrideLoan;

/* A waiter's class as a loan may lend it: settings that are no class (a
 * timer slack or nice value set by hand) lend nothing above background. */
QClass override_lendable(QClass c);

/* Begin an override on the pinned owner. Takes *owner (the book keeps it
 * or closes it; *owner is TASK_REF_NULL afterwards). If the owner itself
 * sleeps on a lock of the same process that qosd knows of (a loan of the
 * owner's that named it), the loan goes on to that lock's owner, and so on
 * (OVERRIDE_CHAIN_MAX owners at most); ret_hops (room for
 * OVERRIDE_CHAIN_MAX - 1, may be NULL) gets those further owners' TIDs.
 * -EBUSY: the owner is real-time; -EMFILE: a new owner would eat into the
 * reserve; -ESRCH: it exited. */
int override_begin(Manager *m, OverrideClient *client, TaskRef *owner, const OverrideLoan *loan,
                   uint64_t *ret_id, pid_t *ret_hops, size_t *ret_n_hops);

/* End override id if sender holds it, restoring its owner when it was the
 * last. -ENOENT: no such override of sender's; -ESRCH: ended, but its
 * owner had exited (nothing restored). ret_tid: the owner's TID. */
int override_end(Manager *m, const char *sender, uint64_t id, pid_t *ret_tid);

/* Crash recovery of loans: the log's writer for a rewrite (source: the
 * Manager), and, at start, putting back the threads a killed qosd left
 * raised by loans (its loans end with it). */
int override_log_write(int fd, const void *source, size_t *ret_n);
size_t override_log_recover(const char *path);

/* Counted refusals for a limit (the OverridesLimited property). */
void override_count_limited(Manager *m);

/* What the rules see of a thread that has overrides (override-view.c): its
 * base stands for it. If the pinned task has overrides and *cur is what
 * they left on it, *cur becomes the base and true is returned; a thread
 * someone else changed since keeps what it has (false). */
bool override_base_view(Manager *m, const TaskRef *ref, TaskAttr *cur);

/* Give the pinned task a new base (a rule, a reload, SetThreadClass, a
 * restore): 1 if it has overrides - its base is now *want, and it runs at
 * the higher of that and its overrides (res is that apply's, with
 * res->after the base) -, 0 if it has none (the caller applies), <0 errno. */
int override_rebase(Manager *m, const TaskRef *ref, const TaskAttr *want, ApplyResult *res);

/* The class the thread has of its own: its base's if it has overrides, else
 * what cur (read now) shows. A lender lends that, not what it was lent. */
QClass override_own_class(Manager *m, const TaskRef *ref, const TaskAttr *cur);

/* One loan on a thread, as explain and ListLoans show it. */
typedef struct LoanInfo {
        pid_t pid;              /* the process (lender and owner are both its) */
        pid_t owner;
        pid_t lender;           /* whose class it is */
        pid_t via;              /* 0: lent directly; else the thread that sleeps on lock */
        uint64_t lock;          /* 0: not known */
        QClass c;
        QClass base_class;      /* the owner's, without overrides */
        QClass lender_class;    /* the lender's own (its base if it has loans) */
} LoanInfo;

/* Every loan qosd holds, or those on thread tid (pinned by start) when tid
 * is not 0; a new array in *ret. */
int override_loans(Manager *m, pid_t tid, uint64_t start, LoanInfo **ret, size_t *ret_n);

/* The base and the class it runs at of a thread with overrides; -ENOENT
 * if it has none. */
int override_owner_state(Manager *m, pid_t tid, uint64_t start, TaskAttr *ret_base, QClass *ret_base_class,
                         QClass *ret_now);
