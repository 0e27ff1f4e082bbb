/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Raw scheduler system calls. The only file in qosd that issues them; every
 * other part goes through task-attr/task-apply. Returns negative errno. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "core/cpu-mask.h"

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif
#ifndef SCHED_FLAG_KEEP_POLICY
#define SCHED_FLAG_KEEP_POLICY 0x08
#endif
#ifndef SCHED_FLAG_KEEP_PARAMS
#define SCHED_FLAG_KEEP_PARAMS 0x10
#endif
#ifndef SCHED_FLAG_UTIL_CLAMP_MIN
#define SCHED_FLAG_UTIL_CLAMP_MIN 0x20
#endif
#ifndef SCHED_FLAG_UTIL_CLAMP_MAX
#define SCHED_FLAG_UTIL_CLAMP_MAX 0x40
#endif
#define SCHED_FLAG_KEEP_ALL_ (SCHED_FLAG_KEEP_POLICY | SCHED_FLAG_KEEP_PARAMS)

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* glibc has no struct sched_attr; this is the kernel's SCHED_ATTR_SIZE_VER1 layout. */
struct qos_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
        uint32_t sched_util_min;
        uint32_t sched_util_max;
};

int sys_sched_setattr(pid_t tid, const struct qos_sched_attr *attr);
int sys_sched_getattr(pid_t tid, struct qos_sched_attr *attr);

/* nice of one thread (Linux's setpriority(PRIO_PROCESS) is per thread). */
int sys_set_nice(pid_t tid, int nice);

#define IOPRIO_CLASS_NONE_ 0
#define IOPRIO_CLASS_RT_ 1
#define IOPRIO_CLASS_BE_ 2
#define IOPRIO_CLASS_IDLE_ 3
#define IOPRIO_VALUE(cls, lvl) (((cls) << 13) | (lvl))
#define IOPRIO_VALUE_CLASS(v) (((v) >> 13) & 0x7)
#define IOPRIO_VALUE_LEVEL(v) ((v) & 0x7)

/* Returns the raw ioprio value (>= 0) or negative errno. */
int sys_ioprio_get(pid_t tid);
int sys_ioprio_set(pid_t tid, int ioprio);

/* Timer slack: prctl for the calling thread, /proc/TID/timerslack_ns for
 * others (which needs CAP_SYS_NICE). */
int sys_timer_slack_get(pid_t tid, uint64_t *ret_ns);
int sys_timer_slack_set(pid_t tid, uint64_t ns);

/* The CPUs a thread may run on. -ERANGE when it may run on a CPU beyond
 * CPU_MASK_MAX (a mask qosd could not restore). */
int sys_affinity_get(pid_t tid, CpuMask *ret);
int sys_affinity_set(pid_t tid, const CpuMask *m);

/* SCHED_FIFO at the lowest priority for the calling thread, and back to
 * SCHED_OTHER: whether real-time is allowed where it is (group.h). */
int sys_try_realtime_self(void);
