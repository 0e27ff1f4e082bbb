/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who may have which class for a thread when it asks qosd (SetThreadClass).
 * A pure function of facts the broker gathered: no bus, no /proc, no clock,
 * so every case is unit-tested without root. The broker asks again, with the
 * same function, whenever one of the inputs changes (foreground, caps). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/qclass.h"

typedef struct AccessRequest {
        uid_t caller_uid;               /* effective uid from the bus credentials */
        bool caller_privileged;         /* uid 0 with CAP_SYS_NICE (caller_identify()) */
        pid_t caller_pid;               /* the caller's process (pinned by start time) */
        uid_t target_uid;               /* owner (real uid) of the target thread's process */
        pid_t target_pid;               /* the process the target thread belongs to */
        QClass requested;
        int requested_relpri;
        QClass current;                 /* the class the thread has now (UNSPECIFIED: custom) */
        int current_relpri;
        bool outside;                   /* the foreground gate holds user-interactive for the target */
        const char *outside_reason;     /* why, for the reply: "not in the foreground (source: x11)" */
        bool playing_audio;             /* the target's process plays audio: held at user-initiated */
        QClass app_cap;                 /* [Limits] MaxClass= of the app; UNSPECIFIED: none */
        const char *app_cap_origin;     /* "file:line" of that MaxClass= */
        bool app_cap_private;           /* ... in the target's owner's own file */
        QClass user_cap;                /* RequestMaxClass= of qosd.conf; UNSPECIFIED: none */
} AccessRequest;

typedef enum AccessResult {
        ACCESS_GRANTED,                 /* granted == requested */
        ACCESS_HELD,                    /* granted below requested, remembered */
        ACCESS_DENIED,                  /* nothing changes, nothing remembered */
} AccessResult;

typedef struct AccessVerdict {
        AccessResult result;
        QClass granted;                 /* never above requested */
        char reason[256];               /* one line for people: "granted", "held at ..." */
        bool reason_private;            /* it names the owner's own file (app_cap_private) */
} AccessVerdict;

void access_decide(const AccessRequest *req, AccessVerdict *ret);
