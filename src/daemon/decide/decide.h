/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verdict on one thread, in one pure function: from what is known of
 * it (its process, its name, its settings now, qosd's record of it), the
 * rules, the foreground gate and the kernel's knobs, what qosd should do
 * and why. Nothing here reads /proc or changes a task: control/ acts on
 * the verdict, explain/ shows it, the broker reads the caps from it, and
 * the unit tests try every case without root (tests/unit/test-decide.c). */
#pragma once

#include <stdbool.h>

#include "config/qosd-conf.h"
#include "core/kernel-caps.h"
#include "core/task-attr.h"
#include "decide/policy.h"
#include "state/task-registry.h"

typedef struct ThreadFacts {
        const RuleSet *rules;           /* NULL: none loaded */
        const ProcessRecord *process;
        const char *thread_name;        /* NULL: the process's own rule */
        bool outside_foreground;        /* the gate holds user-interactive (focus.h) */
        /* Or, when set, asked instead, and only when a rule says
         * user-interactive: the gate may read /proc, which most verdicts
         * (every event of a storm) need not pay for. */
        bool (*holds_interactive)(const void *userdata, pid_t pid);
        const void *holds_userdata;
        /* Asked only for a thread held by the gate: its process plays
         * audio (relayed.h). Without it, playing_audio says. */
        bool (*plays_audio)(const void *userdata, pid_t pid);
        bool playing_audio;
        bool game_main;                 /* the main thread of a game gamemode runs (games.h): with
                                         * no class from the rules, user-initiated */
        const TaskAttr *now;            /* its settings without loans (override_base_view), or NULL */
        const TaskEntry *entry;         /* qosd's record of this very task, or NULL */
        /* What qosd keeps as its original (entry's, or for a new task its
         * creator's, whose values it inherited), or NULL for now's: the
         * CPUs a class places it on are among these. */
        const TaskAttr *orig;
        ForeignPolicy on_foreign;
        const KernelCaps *caps;
} ThreadFacts;

typedef enum Action {
        ACTION_NONE,            /* no rule, and nothing of qosd's to undo */
        ACTION_KEEP_REQUEST,    /* the program asked qosd (the broker): its request beats the rules */
        ACTION_RESTORE,         /* qosd changed it and no rule covers it now: back to its original */
        ACTION_SKIP_REALTIME,   /* real-time or deadline: never touched */
        ACTION_FOREIGN,         /* someone else changed it after qosd: leave it alone from now on */
        ACTION_LEAVE_FOREIGN,   /* someone else's since earlier (ForeignChange=leave) */
        ACTION_UNCHANGED,       /* already has its class: no system call */
        ACTION_APPLY,           /* give it the class (want) */
        _ACTION_MAX,
} Action;

typedef struct Verdict {
        Decision rule;          /* the rules' class, with MaxClass and the gate applied */
        Action action;
        bool reclaim;           /* ACTION_APPLY on a thread someone else changed (ForeignChange=reapply) */
        bool newly_foreign;     /* with reclaim: the change is new, say so before taking it back */
        TaskAttr want;          /* ACTION_APPLY and ACTION_UNCHANGED: the class's settings */
        bool none_efficient;    /* its class runs on efficient CPUs, but none it may use is one */
} Verdict;

/* The rules' decision alone (no thread state needed): what explain shows
 * as the verdict and the broker reads the caps from. */
int decide_rule(const ThreadFacts *f, Decision *ret);

/* The whole verdict; f->now is required. Negative errno only if matching
 * failed (no memory). */
int decide(const ThreadFacts *f, Verdict *ret);

/* Why, in the words qosctl explain uses. */
const char *action_to_string(Action a);

/* The knobs a read-back compares: all the kernel has. */
unsigned decide_compare_mask(const KernelCaps *caps);

/* Someone else changed the task after qosd did (renice, chrt, rtkit,
 * gamemode, the program itself). */
bool decide_changed_by_someone_else(const TaskEntry *e, const TaskAttr *now, const KernelCaps *caps);

/* The task is in class c by the knobs that define a class, or on its way
 * there, and in the group qosd set: whoever put it there, it is what the
 * rules say (the preload applies the same rules inside the program). */
bool decide_has_class(const TaskEntry *e, const TaskAttr *now, QClass c, const KernelCaps *caps);
