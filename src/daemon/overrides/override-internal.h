/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The records behind override-book.h, shared by the files that keep them:
 * override-book.c (begin, end, pins, limits), override-chain.c (the chains
 * qosd walks for a lender that named its lock) and override-view.c (what
 * explain, ps and the rule engine see of them). Nothing else includes it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "overrides/override-book.h"
#include "core/override-stack.h"
#include "core/pid-map.h"
#include "state/state-file.h"
#include "core/task-apply.h"
#include "core/task-attr.h"

typedef struct Owner Owner;
typedef struct UserTally UserTally;

/* A further owner along a record's chain: it holds the lock that the
 * previous owner (via) sleeps on, and gets the record's class too. */
typedef struct Hop {
        Owner *owner;
        pid_t via;
        uint64_t lock;
} Hop;

/* One override: which caller holds it, on which thread, lent by whom. */
typedef struct Record {
        struct Record *next;
        uint64_t id;
        OverrideClient *client;
        Owner *owner;
        QClass asked;           /* what the caller lent, before any cap */
        QClass c;               /* what it lends now: asked, capped at what its waiter has */
        pid_t tgid;             /* the caller's process: a chain never leaves it */
        pid_t waiter;           /* the lender, pinned by its start time */
        uint64_t waiter_start;
        uint64_t lock;          /* what the waiter sleeps on (its address), 0: not said */
        Hop hops[OVERRIDE_CHAIN_MAX - 1];
        size_t n_hops;
} Record;

/* A thread that has overrides: pinned, with its base - what it runs at
 * without them. The base is what it had before the first, and what qosd's
 * rules or SetThreadClass give it while the overrides last. */
struct Owner {
        Owner *next;
        TaskRef ref;
        TaskAttr base;
        QClass base_class;
        TaskAttr now;           /* what the last apply left on it (read back) */
        bool applied;           /* now is set */
        OverrideStack stack;    /* the records' classes and their hops' */
        bool gone;              /* its pin failed: never acted on again */
        StateFile *log;         /* crash recovery: its base and what the loans left */
        bool logged;            /* its record is in the log, with logged_base */
        TaskAttr logged_base;
        QClass recap_has, recap_was;    /* override-recap.c's, during a recap */
};

/* How many overrides one user's connections hold together. */
struct UserTally {
        UserTally *next;
        uid_t uid;
        size_t n;
};

/* A bus connection that holds overrides; tracked so that they end with it. */
struct OverrideClient {
        OverrideClient *next;
        char *sender;
        sd_bus_track *track;
        size_t n;
        uid_t uid;              /* the bus's, which never changes for a connection */
        Manager *manager;
};

struct Overrides {
        Record *records;
        Owner *owners;
        PidMap by_tid;          /* TID -> Owner*: one per TID, the EXIT lookup */
        PidMap edges;           /* waiter TID -> its newest Record that names a lock */
        OverrideClient *clients;
        UserTally *users;
        uint64_t next_id;
        uint64_t limited;
        StateFile *log;         /* the owners' records (override_log_open()) */
};

/* Apply what o should run at now (its base under the top of its stack).
 * -ESRCH marks it gone. */
int owner_apply(Owner *o);
/* The same, with the apply's result (res->after is what the task has). */
int owner_apply_result(Owner *o, ApplyResult *res);

/* Log o's record before an apply that leaves now on it (override-log.c). */
void owner_log(Owner *o, const TaskAttr *now);

/* After pops: apply o (unless gone) and free it if nothing is left on it. */
void owner_settle(Overrides *ov, Owner *o);

/* The owner qosd pins for this task, or NULL. */
Owner *owner_of(const Overrides *ov, pid_t tid, uint64_t start_time);

/* override-chain.c: walk r's chain again (after an edge of its process
 * began or ended) and push/pop its hops. */
void chain_refresh(Overrides *ov, Record *r);
/* Every record of process tgid whose chain passes through thread via. */
void chain_refresh_through(Overrides *ov, pid_t tgid, pid_t via);
/* r names a lock: it is the newest edge of its waiter. */
void chain_edge_add(Overrides *ov, Record *r);
/* r is ending: forget it as an edge (an older one of the same waiter
 * takes its place), and pop its hops (owners settled). */
void chain_record_ending(Overrides *ov, Record *r);
/* o exited: no hop points at it any more. */
void chain_forget_owner(Overrides *ov, Owner *o);
