/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The knob table: one row per knob with everything that differs from one
 * knob to the next. The code that probes (kernel-caps.c), reads
 * (task-attr.c), applies and restores (task-apply.c), prints (attr-format.c)
 * and records (the state file) knobs loops over the rows and names no knob,
 * so a new knob is a new row (and its system call in sched-syscall.c).
 * knob_row() lists every knob in a switch without a default, so a knob
 * without a row is a compiler warning (-Wswitch), not a silent gap. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/kernel-caps.h"
#include "core/knob.h"
#include "core/task-attr.h"

struct qos_sched_attr;

typedef struct KnobRow {
        const char *name;       /* as qosctl prints it and the state file keys it */

        /* probe: runs on kernel-caps.c's throwaway thread and sets
         * caps->supported[] and caps->error[] for this knob. */
        void (*probe)(KernelCaps *caps);
        /* Why the knob is unsupported, or NULL for what its errno says. */
        const char *(*reason)(const KernelCaps *caps);

        /* read: a knob sched_getattr reports is taken from the one call
         * every read makes (from_sched); any other has a read of its own,
         * made only when the knob is asked for: -ESRCH if the thread is
         * gone, another error fails the whole read. Neither: the knob has
         * no kernel interface, and no value in a TaskAttr. */
        void (*from_sched)(const struct qos_sched_attr *sa, const KernelCaps *caps, TaskAttr *a);
        int (*read)(pid_t tid, const KernelCaps *caps, TaskAttr *a);
        /* Whether a and b have the same value (for task_attr_diff()). */
        bool (*equal)(const TaskAttr *a, const TaskAttr *b);
        /* With a read of its own: what a read that skipped it keeps. */
        void (*copy)(TaskAttr *to, const TaskAttr *from);

        /* apply, and restore, which applies the original: returns negative
         * errno. NULL for policy, nice and slice, which task-apply.c sets
         * together in one sched_setattr. */
        int (*apply)(pid_t tid, const TaskAttr *cur, const TaskAttr *want);

        /* format: for people, may round ("0.70ms", "be/2"). */
        void (*format)(const TaskAttr *a, char *buf, size_t size);

        /* persist: exact, the value of "<name>=<value>" in the state file
         * (no blank, no '='); -ENOBUFS if it does not fit, -EINVAL if a
         * value does not parse. NULL: nothing to keep. */
        int (*persist_format)(const TaskAttr *a, char *buf, size_t size);
        int (*persist_parse)(const char *value, TaskAttr *a);
} KnobRow;

/* The row of knob k; NULL out of range. */
const KnobRow *knob_row(Knob k);

/* The rows of the knobs that travel in struct sched_attr (knob-sched.c). */
extern const KnobRow knob_row_policy, knob_row_nice, knob_row_slice, knob_row_uclamp;
/* Where a thread may run (knob-cpus.c). */
extern const KnobRow knob_row_cpus;

/* Room for any one knob's persisted value. */
#define KNOB_PERSIST_MAX 80 /* a CPU mask in hex: "x" and 64 digits */

/* " <prefix>.<name>=<value>" for every knob with something to keep, into
 * buf: the length, or -ENOBUFS. */
int knob_persist_format_attr(const TaskAttr *a, const char *prefix, char *buf, size_t size);
/* One field "<name>=<value>" into a: -ENOENT if no knob keeps a value by
 * that name, -EINVAL if the value does not parse. *ret_knob: which knob. */
int knob_persist_parse_field(const char *name, const char *value, TaskAttr *a, Knob *ret_knob);

/* For rows' persist_parse: a whole decimal number in range, nothing else
 * (no blank, no '+'); -EINVAL otherwise. */
int knob_parse_int(const char *s, int *ret);
int knob_parse_u64(const char *s, uint64_t *ret);
/* A duration for people: "0.70ms", "50us" (for rows' format). */
void knob_format_ns(uint64_t ns, char *buf, size_t size);
/* snprintf for persist_format: -ENOBUFS if truncated. */
int knob_persist_printf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
