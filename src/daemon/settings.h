/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Daemon settings from qosd.conf ([Daemon] section, INI). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef enum ForeignPolicy {
        FOREIGN_LEAVE,          /* someone else changed a thread: leave it alone (default) */
        FOREIGN_REAPPLY,        /* take it back on the next evaluation */
} ForeignPolicy;

typedef struct Settings {
        bool restore_on_exit;   /* RestoreOnExit=yes: put every managed thread back on SIGTERM */
        uint64_t scan_interval_usec;    /* ScanIntervalSec=: periodic convergence scan; 0 = off */
        int log_level;          /* LogLevel= */
        char *profile;          /* Profile=: scheduler profile to apply at start, NULL = leave */
        ForeignPolicy on_foreign;       /* ForeignChange=leave|reapply */
        int receive_buffer;     /* ReceiveBuffer=: proc connector socket buffer, bytes */
        bool watch_config;      /* WatchConfig=: reload when rule directories change */
        bool user_rules;        /* UserRules=: read ~/.config/qos/apps.d of each user */
        unsigned user_rules_min_uid;    /* UserRulesMinUid=: accounts below are system ones */
} Settings;

void settings_init(Settings *s);
void settings_done(Settings *s);

/* Parse path; a missing file keeps the defaults. Errors are logged as
 * file:line and the offending line is ignored; returns the number of
 * errors (>= 0) or a negative errno if the file cannot be read. */
int settings_load(Settings *s, const char *path);
