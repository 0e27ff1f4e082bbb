/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one table that maps each class to every knob. Everything that applies,
 * prints or compares a class reads it from here. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel-caps.h"
#include "core/qclass.h"
#include "core/task-attr.h"

typedef struct ClassKnobs {
        int policy;               /* SCHED_OTHER, SCHED_BATCH or SCHED_IDLE */
        int nice;
        uint64_t slice_ns;        /* 0: the kernel's default slice */
        int uclamp_min;           /* 0..1024; 0/1024 is "no clamp" */
        int uclamp_max;
        unsigned rampup_pct;      /* 100: the kernel's own ramp-up */
        int ioprio;               /* IOPRIO_VALUE(class, level); 0: none, follows nice */
        uint64_t timer_slack_ns;  /* 50000 is the kernel's default */
        bool reset_on_fork;       /* children start at the kernel default, not this class */
        /* The class's own cpu cgroup (group.h), which orders it against
         * other applications: */
        unsigned group_weight;    /* cpu.weight units: 100 is one session's share; 0: no group */
        bool group_idle;          /* cpu.idle: the group runs only when no other wants the CPU */
        unsigned group_rt_pct;    /* real-time budget (v1 cpu.rt_runtime_us), % of each CPU */
        bool efficient_cpus;      /* placed on the efficient CPUs of a hybrid machine (cpu-kinds.h) */
} ClassKnobs;

/* The power mode the table is for (qosd follows power-profiles-daemon and
 * the battery; class-table.c says what each changes). */
typedef enum PowerMode {
        POWER_BALANCED,
        POWER_SAVER,            /* power-saver, or on battery */
        POWER_PERFORMANCE,
        _POWER_MAX,
} PowerMode;

void class_table_set_power(PowerMode p);
PowerMode class_table_power(void);
const char *power_mode_to_string(PowerMode p);

/* The knobs of a valid class; NULL for QCLASS_UNSPECIFIED or out of range. */
const ClassKnobs *class_knobs(QClass c);

/* True if class c has a group of its own (a weight or idle). */
bool class_has_group(QClass c);

/* The attributes a thread has once class c is applied on a kernel with caps:
 * knobs the kernel lacks take the value the thread reads back there. */
void class_target_attr(QClass c, const KernelCaps *caps, TaskAttr *ret);

/* The knobs that define membership of a class when reading a thread back:
 * policy, nice and (where supported) slice. */
unsigned class_identity_knobs(const KernelCaps *caps);

/* The class whose identity knobs equal attr's, or QCLASS_UNSPECIFIED if the
 * thread has settings no class has (changed by hand, by another tool). */
QClass class_from_attr(const TaskAttr *attr, const KernelCaps *caps);

/* Format one knob of a class's table entry for `qosctl classes`. */
const char *class_format_knob(QClass c, Knob k, char *buf, size_t size);
