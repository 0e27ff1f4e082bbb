/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which CPU scheduler runs: the kernel's fair class, or a BPF scheduler
 * through sched_ext, as /sys/kernel/sched_ext tells. Read only; loading a
 * scheduler is its loader's job (the daemon's bpf-scheduler.c runs one). */
#pragma once

#include <stddef.h>

typedef enum SchedExtState {
        SCHED_EXT_ABSENT,       /* no /sys/kernel/sched_ext: not built in (CONFIG_SCHED_CLASS_EXT) */
        SCHED_EXT_DISABLED,     /* built in, no BPF scheduler loaded: the fair class runs */
        SCHED_EXT_ENABLED,      /* a BPF scheduler runs; ops names it */
        SCHED_EXT_CHANGING,     /* "enabling" or "disabling": a load or unload in progress */
} SchedExtState;

#define SCHED_EXT_OPS_MAX 128

typedef struct SchedExt {
        SchedExtState state;
        char ops[SCHED_EXT_OPS_MAX];    /* root/ops: the loaded scheduler's name, "" if none */
} SchedExt;

/* Read state and root/ops below sys_root (NULL or "" for /). Never fails:
 * an unreadable state file reads as ABSENT. */
void sched_ext_read(const char *sys_root, SchedExt *ret);

/* Parse the text of the state file ("enabled\n"). Pure. */
SchedExtState sched_ext_state_from_string(const char *s);

/* One line for reports: "fair (no sched_ext)", "fair (sched_ext idle)",
 * "sched_ext \"qos\"", "sched_ext enabling". */
const char *sched_ext_describe(const SchedExt *x, char *buf, size_t size);
