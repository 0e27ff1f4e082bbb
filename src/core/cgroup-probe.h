/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the machine offers for scheduling groups, found once: which cgroup
 * hierarchy carries the cpu controller, which of its files exist, and
 * whether autogroup is on. qosd's groups (group.h) live in the hierarchy
 * chosen here; a machine without a usable one gets the per-thread knobs
 * only, and the reason is reported like any other missing knob. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef enum CgroupBackend {
        CGROUP_BACKEND_NONE,
        /* cgroup v1 cpu controller: any single thread may move (`tasks`). */
        CGROUP_BACKEND_V1,
        /* cgroup v2, qosd's groups threaded children of the root: a thread
         * of a process in the root may move (`cgroup.threads`). */
        CGROUP_BACKEND_V2,
} CgroupBackend;

typedef enum CgroupMissing {
        CGROUP_OK,
        CGROUP_NO_CPU_CONTROLLER,   /* neither v1 nor v2 has the cpu controller */
        CGROUP_V1_NOT_ROOT,         /* the cpu hierarchy is mounted from below its root (a container) */
        CGROUP_V1_FILES_MISSING,    /* no tasks or cpu.shares file */
        CGROUP_V2_CPU_NOT_ENABLED,  /* v2 has cpu but the root's subtree_control does not enable it */
        CGROUP_V2_NO_THREADED,      /* v2 without threaded mode (cgroup.threads) */
        CGROUP_NO_RT_BUDGET,        /* a group of ours would refuse real-time threads (group_rt_probe()) */
} CgroupMissing;

#define CGROUP_MOUNT_MAX 256

typedef struct CgroupCaps {
        CgroupBackend backend;
        CgroupMissing missing;          /* why backend is NONE */
        char mount[CGROUP_MOUNT_MAX];   /* the hierarchy qosd uses: v1 cpu or v2 */
        bool idle;                      /* cpu.idle exists (5.15+): background groups can be idle */
        bool rt_runtime;                /* cpu.rt_runtime_us exists (v1, CONFIG_RT_GROUP_SCHED) */
        bool autogroup;                 /* sched_autogroup_enabled: root-cgroup tasks compete per session */
        /* systemd runs the machine (/run/systemd/system) on cgroup v2 with
         * the cpu controller: processes sit in units, whose weights qosd
         * sets through systemd (src/daemon/units.h). */
        bool systemd_units;

        /* What was found, for reports; the choice above is made from it. */
        char v1_mount[CGROUP_MOUNT_MAX];        /* "" if no v1 hierarchy has cpu */
        bool v1_root;                           /* that mount shows the hierarchy's root */
        bool v1_files;                          /* tasks and cpu.shares exist there */
        char v2_mount[CGROUP_MOUNT_MAX];        /* "" if cgroup2 is not mounted */
        bool v2_cpu_available;                  /* "cpu" in the root's cgroup.controllers */
        bool v2_cpu_enabled;                    /* "cpu" in the root's cgroup.subtree_control */
        bool v2_threaded;                       /* the root has cgroup.threads */
} CgroupCaps;

/* Fill the mount fields (v1_mount, v1_root, v2_mount) from the text of
 * /proc/self/mountinfo. Pure, for the unit tests. */
void cgroup_caps_parse_mountinfo(const char *mountinfo, CgroupCaps *caps);

/* Choose the backend from what was found: v1 wherever it has the cpu
 * controller (it moves any thread), else v2 if its cpu controller is
 * enabled below the root and threaded mode exists. Sets backend, missing
 * and mount. Pure. */
void cgroup_caps_decide(CgroupCaps *caps);

/* Probe the running system (mountinfo, the files, autogroup). Never fails:
 * what is missing is recorded. */
void cgroup_caps_probe(CgroupCaps *caps);

/* Why there is no backend, e.g. "no cpu cgroup controller". */
const char *cgroup_missing_to_string(CgroupMissing m);

/* One line for reports: "cgroup v1 cpu at /sys/fs/cgroup/cpu" or why none. */
const char *cgroup_caps_describe(const CgroupCaps *caps, char *buf, size_t size);
