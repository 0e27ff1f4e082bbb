/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroup-probe.h"
#include "core/fileio.h"
#include "core/macro.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s) {
        char *w = s;
        for (char *r = s; *r; r++) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
                    r[3] <= '7') {
                        *w++ = (char) ((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
                        r += 3;
                } else
                        *w++ = *r;
        }
        *w = '\0';
}

/* token is one of the comma-separated words of list. */
static bool has_token(const char *list, const char *token) {
        size_t n = strlen(token);
        for (const char *p = list; p; p = strchr(p, ',')) {
                if (*p == ',')
                        p++;
                if (strncmp(p, token, n) == 0 && (p[n] == ',' || p[n] == '\0'))
                        return true;
        }
        return false;
}

/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS" */
static void parse_line(char *line, CgroupCaps *caps) {
        char *field[6], *save = NULL, *tok;
        int n = 0;

        for (tok = strtok_r(line, " ", &save); tok && n < 6; tok = strtok_r(NULL, " ", &save))
                field[n++] = tok;
        if (n < 6)
                return;
        while (tok && strcmp(tok, "-") != 0)
                tok = strtok_r(NULL, " ", &save);
        char *fstype = strtok_r(NULL, " ", &save);
        char *source = strtok_r(NULL, " ", &save);
        char *super = strtok_r(NULL, " \n", &save);
        if (!fstype || !source || !super)
                return;

        char *root = field[3], *where = field[4];
        unescape(root);
        unescape(where);
        if (strlen(where) >= CGROUP_MOUNT_MAX)
                return;
        if (strcmp(fstype, "cgroup") == 0 && has_token(super, "cpu")) {
                bool is_root = strcmp(root, "/") == 0;
                /* Prefer a mount that shows the whole hierarchy. */
                if (caps->v1_mount[0] && (caps->v1_root || !is_root))
                        return;
                snprintf(caps->v1_mount, sizeof caps->v1_mount, "%s", where);
                caps->v1_root = is_root;
        } else if (strcmp(fstype, "cgroup2") == 0 && !caps->v2_mount[0] && strcmp(root, "/") == 0)
                snprintf(caps->v2_mount, sizeof caps->v2_mount, "%s", where);
}

void cgroup_caps_parse_mountinfo(const char *mountinfo, CgroupCaps *caps) {
        _cleanup_free_ char *copy = strdup(mountinfo);
        char *save = NULL;

        caps->v1_mount[0] = caps->v2_mount[0] = '\0';
        caps->v1_root = false;
        if (!copy)
                return;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                parse_line(line, caps);
}

void cgroup_caps_decide(CgroupCaps *caps) {
        caps->backend = CGROUP_BACKEND_NONE;
        caps->mount[0] = '\0';
        if (caps->v1_mount[0]) {
                if (!caps->v1_root)
                        caps->missing = CGROUP_V1_NOT_ROOT;
                else if (!caps->v1_files)
                        caps->missing = CGROUP_V1_FILES_MISSING;
                else {
                        caps->backend = CGROUP_BACKEND_V1;
                        snprintf(caps->mount, sizeof caps->mount, "%s", caps->v1_mount);
                }
        } else if (caps->v2_mount[0] && caps->v2_cpu_available) {
                /* Enabling cpu at the root would put every cgroup on the
                 * machine under the cpu controller: that is the init
                 * system's decision, not qosd's. */
                if (!caps->v2_cpu_enabled)
                        caps->missing = CGROUP_V2_CPU_NOT_ENABLED;
                else if (!caps->v2_threaded)
                        caps->missing = CGROUP_V2_NO_THREADED;
                else {
                        caps->backend = CGROUP_BACKEND_V2;
                        snprintf(caps->mount, sizeof caps->mount, "%s", caps->v2_mount);
                }
        } else
                caps->missing = CGROUP_NO_CPU_CONTROLLER;
        if (caps->backend != CGROUP_BACKEND_NONE)
                caps->missing = CGROUP_OK;
}

static bool file_exists(const char *dir, const char *file) {
        char path[CGROUP_MOUNT_MAX + 64];
        snprintf(path, sizeof path, "%s/%s", dir, file);
        return access(path, F_OK) == 0;
}

static bool file_has_token(const char *dir, const char *file, const char *token) {
        char path[CGROUP_MOUNT_MAX + 64], buf[512];
        snprintf(path, sizeof path, "%s/%s", dir, file);
        if (read_small_file(path, buf, sizeof buf, NULL) < 0)
                return false;
        /* These files are space-separated lists. */
        for (char *save = NULL, *t = strtok_r(buf, " \n", &save); t; t = strtok_r(NULL, " \n", &save))
                if (strcmp(t, token) == 0)
                        return true;
        return false;
}

void cgroup_caps_probe(CgroupCaps *caps) {
        char buf[16384];

        *caps = (CgroupCaps) {};
        if (read_small_file("/proc/self/mountinfo", buf, sizeof buf, NULL) >= 0)
                cgroup_caps_parse_mountinfo(buf, caps);
        if (caps->v1_mount[0])
                caps->v1_files = file_exists(caps->v1_mount, "tasks") && file_exists(caps->v1_mount, "cpu.shares");
        if (caps->v2_mount[0]) {
                caps->v2_cpu_available = file_has_token(caps->v2_mount, "cgroup.controllers", "cpu");
                caps->v2_cpu_enabled = file_has_token(caps->v2_mount, "cgroup.subtree_control", "cpu");
                caps->v2_threaded = file_exists(caps->v2_mount, "cgroup.threads");
        }
        cgroup_caps_decide(caps);

        /* v1 lists the controller's files at the root too; v2 only in
         * children, so there idle is known once a group exists and
         * group_ensure() falls back to the lowest weight without it. */
        if (caps->backend == CGROUP_BACKEND_V1) {
                caps->idle = file_exists(caps->mount, "cpu.idle");
                caps->rt_runtime = file_exists(caps->mount, "cpu.rt_runtime_us");
        } else if (caps->backend == CGROUP_BACKEND_V2)
                caps->idle = true;

        /* sd_booted()'s test, without linking libsystemd here. */
        caps->systemd_units = access("/run/systemd/system", F_OK) == 0 && caps->v2_mount[0] &&
                              caps->v2_cpu_enabled;

        if (read_small_file("/proc/sys/kernel/sched_autogroup_enabled", buf, sizeof buf, NULL) >= 0)
                caps->autogroup = buf[0] == '1';
}

const char *cgroup_missing_to_string(CgroupMissing m) {
        switch (m) {
        case CGROUP_OK:
                return "supported";
        case CGROUP_NO_CPU_CONTROLLER:
                break;
        case CGROUP_V1_NOT_ROOT:
                return "the cpu cgroup hierarchy is mounted from below its root";
        case CGROUP_V1_FILES_MISSING:
                return "no tasks or cpu.shares in the cpu cgroup hierarchy";
        case CGROUP_V2_CPU_NOT_ENABLED:
                return "cgroup v2 cpu controller not enabled in the root's cgroup.subtree_control";
        case CGROUP_V2_NO_THREADED:
                return "cgroup v2 without threaded mode";
        case CGROUP_NO_RT_BUDGET:
                return "the kernel schedules real-time threads by group (CONFIG_RT_GROUP_SCHED) and qosd's "
                       "groups get no real-time budget here: rtkit could not make their threads real-time";
        }
        return "no cpu cgroup controller";
}

const char *cgroup_caps_describe(const CgroupCaps *caps, char *buf, size_t size) {
        switch (caps->backend) {
        case CGROUP_BACKEND_V1:
                snprintf(buf, size, "cgroup v1 cpu controller at %s%s", caps->mount,
                         caps->idle ? "" : " (no cpu.idle: background gets the lowest weight)");
                break;
        case CGROUP_BACKEND_V2:
                snprintf(buf, size, "cgroup v2 at %s, threaded groups", caps->mount);
                break;
        case CGROUP_BACKEND_NONE:
                snprintf(buf, size, "%s", cgroup_missing_to_string(caps->missing));
                break;
        }
        return buf;
}
