/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Daemon settings from qosd.conf ([Daemon] section, INI). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/qclass.h"
#include "qos-config.h"

typedef enum ForeignPolicy {
        FOREIGN_LEAVE,          /* someone else changed a thread: leave it alone (default) */
        FOREIGN_REAPPLY,        /* take it back on the next evaluation */
} ForeignPolicy;

typedef enum ForegroundGate {
        GATE_AUTO,              /* in force once a foreground source has spoken (default) */
        GATE_YES,               /* always: nothing is foreground until told */
        GATE_NO,                /* never: user-interactive is not tied to the foreground */
} ForegroundGate;

typedef enum SchedulerKind {
        SCHEDULER_NONE,         /* leave the CPU scheduler as the kernel has it (default) */
        SCHEDULER_QOS,          /* run the sched_ext loader scx_qos (bpf-scheduler.h) */
} SchedulerKind;

/* The installed loader, SchedulerPath='s default. Not below --root: it is
 * a program qosd runs, not a file it reads. */
#define SCHEDULER_PATH_DEFAULT QOS_LIBEXECDIR "/qos/scx_qos"

typedef struct Settings {
        bool restore_on_exit;   /* RestoreOnExit=yes: put every managed thread back on SIGTERM */
        uint64_t scan_interval_usec;    /* ScanIntervalSec=: periodic convergence scan; 0 = off */
        int log_level;          /* LogLevel= */
        char *profile;          /* Profile=: scheduler profile to apply at start, NULL = leave */
        ForeignPolicy on_foreign;       /* ForeignChange=leave|reapply */
        int receive_buffer;     /* ReceiveBuffer=: proc connector socket buffer, bytes */
        uint64_t event_rest_usec; /* EventRestUSec=: rest of the socket in a storm; 0 = never */
        bool watch_config;      /* WatchConfig=: reload when rule directories change */
        bool user_rules;        /* UserRules=: read ~/.config/qos/apps.d of each user */
        bool systemd_units;     /* SystemdUnits=: weigh units through systemd where it runs the machine */
        unsigned user_rules_min_uid;    /* UserRulesMinUid=: accounts below are system ones */
        /* What one user's rule directory may load (UserRulesMaxFiles=,
         * UserRulesMaxRules=, UserRulesMaxBytes=), and how often a change
         * there reloads it (UserRulesReloadIntervalSec=, in usec). */
        unsigned user_rules_max_files;
        unsigned user_rules_max_rules;
        int user_rules_max_bytes;
        uint64_t user_rules_reload_interval_usec;
        /* The broker (SetThreadClass, SetForeground); see qosd(8). */
        ForegroundGate foreground_gate; /* ForegroundGate=auto|yes|no */
        uid_t foreground_uid;   /* ForegroundUser=: may call SetForeground; -1: root only */
        gid_t foreground_gid;   /* ForegroundGroup=: likewise; -1: none */
        QClass request_max_class;       /* RequestMaxClass=: cap on requests of non-root users */
        unsigned request_rate;  /* RequestRate=: requests per second per process (per user: 4x) */
        unsigned request_burst; /* RequestBurst=: the bucket (per user: 4x) */
        unsigned list_tasks_max;        /* ListTasksMax=: rows in one ListTasks reply */
        SchedulerKind scheduler;        /* Scheduler=none|qos */
        char *scheduler_path;   /* SchedulerPath=: the loader; NULL = SCHEDULER_PATH_DEFAULT */
        /* EfficientCPUs=, PerformanceCPUs=: CPU lists where the kernel
         * tells no kinds apart (cpu-kinds.h); NULL = the kernel's word. */
        char *efficient_cpus;
        char *performance_cpus;
} Settings;

void settings_init(Settings *s);
void settings_done(Settings *s);

/* Parse path; a missing file keeps the defaults. Errors are logged as
 * file:line and the offending line is ignored; returns the number of
 * errors (>= 0) or a negative errno if the file cannot be read. */
int settings_load(Settings *s, const char *path);

/* The key of [Daemon] that key is probably a typo of, or NULL. */
const char *settings_nearest_key(const char *key);

/* The settings file under root (NULL: /): ROOT/etc/qos/qosd.conf. To free. */
char *settings_default_path(const char *root);

/* SchedulerPath=, or its default. */
const char *settings_scheduler_path(const Settings *s);
