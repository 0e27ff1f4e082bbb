/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What class a thread should have: the rules' verdict, then the caps. Pure
 * evaluation of already loaded rules; nothing here reads or writes tasks.
 * Access control (foreground, broker requests) will decide here too. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "state/process-table.h"
#include "config/rules.h"

typedef struct Decision {
        QClass class;           /* final; QCLASS_UNSPECIFIED: no rule says anything */
        QClass wanted;          /* what the rule asked, before MaxClass */
        bool capped;
        bool held;              /* user-interactive held (at utility, or at user-initiated
                                 * while the process plays audio): not in the foreground */
        bool game;              /* no rule: the default for a game's main thread (decide.h) */
        MatchResult match;
} Decision;

int policy_decide(const RuleSet *rs, const ProcessRecord *p, const char *thread_name,
                  Decision *ret);

/* The foreground gate on what rules say: user-interactive for a process
 * outside the foreground (outside is true) is held at utility, or at
 * user-initiated while the process plays audio (audio is true: music must
 * not stutter behind another window), unless the admin exempted the
 * application. Programs that ask qosd meet the same gate
 * (access-policy.c); files must not be a way around it. */
void policy_gate_interactive(Decision *d, bool outside, bool audio);

/* "file:line" of the deciding rule, "" if none. */
const char *decision_origin(const Decision *d, char *buf, size_t size);
