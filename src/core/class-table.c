/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "core/class-table.h"
#include "core/macro.h"
#include "core/sched-syscall.h"

#define MS(x) ((uint64_t) ((x) * 1000000.0))
#define US(x) ((uint64_t) ((x) * 1000.0))

/*
 * Why these values (figures from the design brief, kernel 6.18, 2 CPUs; the
 * benchmark suite in bench/ is what tunes them):
 *
 * user-interactive: nice -20 and a 0.5 ms slice. The tuning run
 *   (`make bench BENCH_ARGS=--scenarios tune-ui`, quiet machine,
 *   2026-12-03) against 4 default hogs in the thread's own session, p99 as a
 *   multiple of the probe alone: an audio loop (0.5 ms every 5.3 ms) at
 *   nice -10 stayed at 3.8-3.9x whatever the slice, at nice -15 or -20 it
 *   was at the floor (0.9x); a 60 Hz frame went from 1.07x (nice -10) to
 *   0.81x (nice -20). A 3 ms slice helped neither. The cost: a user-
 *   interactive thread that spins leaves a default thread of its group ~1%
 *   of a CPU, which is why promotions above utility are brokered and why
 *   the group layer, not nice, sets its share against other applications.
 *   reset-on-fork: helpers spawned by a UI thread start at utility
 *   (Apple's rule), not UI. Best-effort I/O level 0, and a small timer
 *   slack so frame timers fire on time.
 * user-initiated: a smaller boost (nice -5, ~3x a default thread; 1 ms
 *   slice, I/O level 2): the user waits, but frames must still win. With
 *   it a worker pool's job p99 was 0.47x its floor beside background hogs
 *   (scenario d). Also reset-on-fork.
 * utility: exactly the kernel's defaults (SCHED_NORMAL, nice 0, default
 *   slice, no clamp, no I/O class, 50 us slack), so an untouched system and
 *   a system where everything is utility behave the same.
 * background: SCHED_IDLE with an 8 ms slice. The kernel preempts an
 *   idle-policy task as soon as a non-idle one wakes, so the long slice
 *   costs the others no latency and only spaces out switches between
 *   background tasks: in the tuning run (`--scenarios tune`, 4 hogs beside
 *   a user-interactive 60 Hz frame, one session) it gave 0.85x the frame's
 *   floor with 101% of the hogs' work and 183 switches/s, where SCHED_IDLE
 *   alone gave 0.90x with 327/s, and the same slice under SCHED_NORMAL or
 *   SCHED_BATCH at nice 19 gave 1.07x and 1.04x. Starvation, measured (60 s
 *   beside 4 utility hogs): a background hog kept 0.15% of its speed alone,
 *   with stalls up to 3.7 s (nice 19: 0.69%, 0.8 s). That is what
 *   background means, "when nothing else wants the CPU"; it is never zero
 *   (SCHED_IDLE still has a weight), and the stall that would hurt, a
 *   background thread holding a lock a user class waits on, is what
 *   performance inheritance lends a class for. nice 19 stays set beneath
 *   SCHED_IDLE so that a thread moved back to SCHED_NORMAL by someone else
 *   is still last. Idle I/O class, 10 ms timer slack for coalesced
 *   wake-ups. Inherited on fork, so a build's compilers stay background.
 * uclamp and ramp-up are not in this kernel; their values are kept so a
 *   kernel that has them gets them.
 *
 * Groups (group.h): per-thread knobs act only inside the thread's group,
 * and with autogroup every session is one, with an equal share. Hogs at
 * SCHED_IDLE in their own sessions left the frame loop at ~11 ms, as if
 * untouched; the same hogs in a cpu.idle group gave ~3.1-4.1 ms. So:
 * background: an idle group. The kernel runs it only when no other group
 *   at the root wants the CPU, which is SCHED_IDLE across sessions.
 *   Weight 1 is the fallback where cpu.idle is missing (before 5.15).
 * user-interactive, user-initiated: weights 1000 and 300 where a session
 *   has 100. Against other applications the group's weight is what counts,
 *   not the thread's nice: 10x and 3x a session, and bounded: a runaway user-interactive thread
 *   takes at most 1000/(1000 + 100n) of the CPU from n busy sessions. A
 *   moved thread leaves its session's autogroup (autogroup applies only in
 *   the root cgroup) and competes at the root with every session.
 * Real-time budgets (v1 with CONFIG_RT_GROUP_SCHED, as here): a group
 *   without one refuses SCHED_FIFO/RR to its threads, so rtkit could no
 *   longer make an audio thread real-time, nor an admin chrt a background
 *   one, once qosd had moved it. 50%, 20% and 10% of each CPU: the most
 *   for the class audio threads are in, and together within the root's
 *   95% with room left for other managers.
 * utility: no group. Its threads stay where the kernel put them.
 *
 * Placement (cpu-kinds.h): on a machine with efficient cores, background
 *   runs only on them, as Apple, Android's cpusets and ChromeOS's
 *   resourced place it: the fast cores stay free for what the user is
 *   doing. The other classes keep every CPU they had; which fast core a
 *   user-interactive thread gets is the kernel's (or scx_qos's) to pick.
 */
static const ClassKnobs class_table[_QCLASS_MAX] = {
        [QCLASS_USER_INTERACTIVE] = {
                .policy = SCHED_OTHER,
                .nice = -20,
                .slice_ns = MS(0.5),
                .uclamp_min = 512,
                .uclamp_max = 1024,
                .rampup_pct = 200,
                .ioprio = IOPRIO_VALUE(IOPRIO_CLASS_BE_, 0),
                .timer_slack_ns = US(10),
                .reset_on_fork = true,
                .group_weight = 1000,
                .group_rt_pct = 50,
        },
        [QCLASS_USER_INITIATED] = {
                .policy = SCHED_OTHER,
                .nice = -5,
                .slice_ns = MS(1),
                .uclamp_min = 256,
                .uclamp_max = 1024,
                .rampup_pct = 150,
                .ioprio = IOPRIO_VALUE(IOPRIO_CLASS_BE_, 2),
                .timer_slack_ns = US(50),
                .reset_on_fork = true,
                .group_weight = 300,
                .group_rt_pct = 20,
        },
        [QCLASS_UTILITY] = {
                .policy = SCHED_OTHER,
                .nice = 0,
                .slice_ns = 0,
                .uclamp_min = 0,
                .uclamp_max = 1024,
                .rampup_pct = 100,
                .ioprio = 0,
                .timer_slack_ns = US(50),
                .reset_on_fork = false,
        },
        [QCLASS_BACKGROUND] = {
                .policy = SCHED_IDLE,
                .nice = 19,
                .slice_ns = MS(8),
                .uclamp_min = 0,
                .uclamp_max = 512,
                .rampup_pct = 50,
                .ioprio = IOPRIO_VALUE(IOPRIO_CLASS_IDLE_, 0),
                .timer_slack_ns = MS(10),
                .reset_on_fork = false,
                .group_weight = 1,
                .group_idle = true,
                .group_rt_pct = 10,
                .efficient_cpus = true,
        },
};

/* The table in force: class_table with the power mode's changes. */
static ClassKnobs table_now[_QCLASS_MAX];
static PowerMode power_now = POWER_BALANCED;
static bool table_made;

/* The power modes (power-profiles-daemon's profile, and the battery):
 * saver: background's timers coalesce 5x more (50 ms of slack, fewer
 *   wake-ups of an idle core), and utility is clamped to half the CPU's
 *   capacity where uclamp exists, so that the frequency governor does not
 *   run a core flat out for work nobody watches. The slices stay: with
 *   policy and nice they are how a thread's class is recognized, also by
 *   qosctl and the preload, which know no mode.
 * performance: background may use every CPU.
 * balanced: the table as it stands. */
static void make_table(PowerMode p) {
        memcpy(table_now, class_table, sizeof table_now);
        if (p == POWER_SAVER) {
                table_now[QCLASS_BACKGROUND].timer_slack_ns = MS(50);
                table_now[QCLASS_UTILITY].uclamp_max = 512;
        } else if (p == POWER_PERFORMANCE)
                table_now[QCLASS_BACKGROUND].efficient_cpus = false;
        power_now = p;
        table_made = true;
}

void class_table_set_power(PowerMode p) {
        if (p >= 0 && p < _POWER_MAX)
                make_table(p);
}

PowerMode class_table_power(void) {
        return power_now;
}

const char *power_mode_to_string(PowerMode p) {
        static const char *const names[_POWER_MAX] = {
                [POWER_BALANCED] = "balanced",
                [POWER_SAVER] = "power-saver",
                [POWER_PERFORMANCE] = "performance",
        };
        return p >= 0 && p < _POWER_MAX ? names[p] : "?";
}

const ClassKnobs *class_knobs(QClass c) {
        if (!qclass_is_valid(c))
                return NULL;
        if (!table_made)
                make_table(POWER_BALANCED);
        return &table_now[c];
}

bool class_has_group(QClass c) {
        const ClassKnobs *k = class_knobs(c);
        return k && (k->group_weight > 0 || k->group_idle);
}

void class_target_attr(QClass c, const KernelCaps *caps, TaskAttr *ret) {
        const ClassKnobs *k = class_knobs(c) ?: class_knobs(QCLASS_DEFAULT);

        *ret = (TaskAttr) {
                .policy = k->policy,
                .nice = k->nice,
                .slice_ns = caps->supported[KNOB_SLICE] ? k->slice_ns : 0,
                .reset_on_fork = k->reset_on_fork,
                .uclamp_min = caps->supported[KNOB_UCLAMP] ? k->uclamp_min : 0,
                .uclamp_max = caps->supported[KNOB_UCLAMP] ? k->uclamp_max : 1024,
                .ioprio = k->ioprio,
                .timer_slack_ns = k->timer_slack_ns,
                .group = caps->supported[KNOB_GROUP] && class_has_group(c) ? c : QCLASS_UNSPECIFIED,
        };
        /* Where it may run, until task_attr_place() makes it the thread's. */
        if (caps->supported[KNOB_CPUS])
                ret->cpus = k->efficient_cpus ? caps->cpu_kinds.efficient : caps->cpu_kinds.present;
}

unsigned class_identity_knobs(const KernelCaps *caps) {
        unsigned m = KNOB_BIT(KNOB_POLICY) | KNOB_BIT(KNOB_NICE);
        if (caps->supported[KNOB_SLICE])
                m |= KNOB_BIT(KNOB_SLICE);
        return m;
}

QClass class_from_attr(const TaskAttr *attr, const KernelCaps *caps) {
        unsigned mask = class_identity_knobs(caps);

        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++) {
                TaskAttr t;
                class_target_attr(c, caps, &t);
                if (task_attr_diff(&t, attr, mask) == 0)
                        return c;
        }
        return QCLASS_UNSPECIFIED;
}

const char *class_format_knob(QClass c, Knob k, char *buf, size_t size) {
        const ClassKnobs *ck = class_knobs(c);
        if (!ck) {
                snprintf(buf, size, "-");
                return buf;
        }
        TaskAttr t = {
                .policy = ck->policy,
                .nice = ck->nice,
                .slice_ns = ck->slice_ns,
                .ioprio = ck->ioprio,
                .timer_slack_ns = ck->timer_slack_ns,
        };
        /* Every knob, and no default: a new one is a -Wswitch warning here. */
        switch (k) {
        case KNOB_POLICY:
        case KNOB_NICE:
        case KNOB_SLICE:
        case KNOB_IOPRIO:
        case KNOB_TIMER_SLACK:
                return task_attr_format_knob(&t, k, buf, size); /* as a thread's */
        case KNOB_UCLAMP:
                snprintf(buf, size, "%d..%d", ck->uclamp_min, ck->uclamp_max);
                return buf;
        case KNOB_RAMPUP:
                snprintf(buf, size, "%u%%", ck->rampup_pct);
                return buf;
        case KNOB_CPUS:
                snprintf(buf, size, "%s", ck->efficient_cpus ? "efficient" : "all");
                return buf;
        case KNOB_GROUP:
                if (ck->group_idle)
                        snprintf(buf, size, "idle");
                else if (ck->group_weight)
                        snprintf(buf, size, "weight %u", ck->group_weight);
                else
                        snprintf(buf, size, "none");
                return buf;
        case _KNOB_MAX:
                break;
        }
        snprintf(buf, size, "?");
        return buf;
}
