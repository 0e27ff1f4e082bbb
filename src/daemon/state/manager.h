/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's state, in one place: every daemon file receives the Manager
 * instead of reaching for globals. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "caller/caller-identity.h"
#include "state/process-table.h"
#include "state/query-limits.h"
#include "state/reload-status.h"
#include "state/rename-queue.h"
#include "config/rules.h"
#include "config/qosd-conf.h"
#include "config/user-rules.h"
#include "state/state-file.h"
#include "state/task-registry.h"

typedef struct Counters {
        uint64_t applied;       /* threads given a class (something changed) */
        uint64_t unchanged;     /* evaluations where the thread already had its class */
        uint64_t restored;      /* threads put back to their originals */
        uint64_t inherited;     /* threads registered as created by a managed task */
        uint64_t foreign;       /* changes by someone else detected (and respected) */
        uint64_t realtime_skipped;      /* RT/deadline threads never touched */
        uint64_t refused;       /* knobs the kernel refused */
        uint64_t vanished;      /* tasks gone between event and apply */
        uint64_t rescans;       /* full /proc scans (start, loss, reload, periodic) */
        uint64_t losses_pending;        /* event losses since the last full scan began */
        uint64_t recovered;     /* originals recovered from the state file */
        uint64_t reloads, reload_failures;
        uint64_t user_reloads;  /* one user's rules reloaded after a change in their directory */
} Counters;

typedef struct EventSource EventSource;
typedef struct SchedProfile SchedProfile;
typedef struct Reloader Reloader;
typedef struct Overrides Overrides;
typedef struct Broker Broker;
typedef struct Units Units;
typedef struct Focus Focus;
typedef struct Relayed Relayed;
typedef struct Power Power;
typedef struct BusLink BusLink;
typedef struct BpfScheduler BpfScheduler;

typedef struct Manager Manager;

/* The foreground gate moved for the processes in pids (all of them if
 * pids is NULL): their rules and held requests are judged again. focus/
 * only answers who is in front; main.c wires this to the engine's scans
 * and the broker, which sit above it. */
typedef void (*GateMovedHook)(Manager *m, const pid_t *pids, size_t n, const char *why);

struct Manager {
        sd_event *event;
        sd_bus *bus;            /* NULL while there is no bus (bus-link.h) */
        BusLink *bus_link;
        EventSource *source;
        Reloader *reloader;
        Broker *broker;         /* SetThreadClass (broker.c) */
        Focus *focus;           /* the foreground gate and its sources (focus.h) */
        Relayed *relayed[2];    /* by RelayedKind: games, apps playing audio (relayed.h) */
        Power *power;           /* the power profile in force (power.h) */
        GateMovedHook gate_moved;
        CallerBook callers;     /* the bus peers, for who calls (caller-identity.h) */
        sd_event_source *rescan_timer;  /* pending rescan after an event loss */
        uint64_t rescan_cost_usec;      /* the CPU time the last such rescan took */
        sd_event_source *renames_timer; /* renamed threads' work due (renames.h) */
        sd_event_source *periodic_timer;

        char *root;             /* --root prefix, NULL for / */
        char *sys_root;         /* --sys-root: prefix for the profile files and sched_ext's state in /sys */
        char *bus_address;
        bool no_bus;
        Settings settings;
        const char *settings_path;      /* qosd.conf, read again on reload for Scheduler= */
        BpfScheduler *scheduler;        /* Scheduler=qos: the loader qosd runs (bpf-scheduler.h) */

        RuleSet *rules;
        size_t rule_files;
        UserDirs user_dirs;     /* the users' rule directories of the last load */
        bool user_rules_off;    /* UserRules=yes but qosd cannot read as a user */
        bool group_uclamp_told; /* the groups' missing cpu.uclamp files were reported */
        ProcessTable procs;
        RenameQueue renames;    /* renamed threads waiting for the rules (renames.h) */
        TaskRegistry tasks;
        StateFile state;
        StateFile loans_state;  /* the overrides' owners, for crash recovery (override-log.c) */
        PidMap recovered;       /* StateRecord* from the previous run, consumed by the first scan */
        SchedProfile *profile;
        Overrides *overrides;   /* lent through BeginOverride; see overrides.h */
        Units *units;           /* the group layer through systemd (units.h), or NULL */

        unsigned scan_gen;
        bool exiting;
        TaskAttr self_orig;     /* qosd's own thread before it took its class */
        Counters counters;
        QueryLimits queries;    /* ListTasks and Explain, per user */
        ReloadStatus last_reload;
};

/* root-prefixed path; caller frees. */
char *manager_path(const Manager *m, const char *path);
