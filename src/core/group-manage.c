/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Creating, filling and removing qosd's groups: the only writes to cgroupfs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/class-table.h"
#include "core/fileio.h"
#include "core/group.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/sched-syscall.h"

#define GROUP_PATH_MAX (CGROUP_MOUNT_MAX + 128)
#define RT_PERIOD_US 1000000 /* v1's default cpu.rt_period_us */
/* Up to 5 s: the kernel freed a removed group's budget after 50-100 ms
 * here, and after up to 2 s between two tests' qosd. */
#define RT_BUDGET_TRIES 250
#define RT_BUDGET_WAIT_USEC (20 * 1000)

static bool is_v1(void) {
        return kernel_caps()->cgroup.backend == CGROUP_BACKEND_V1;
}

/* The file a TID is written to: v1 moves threads through `tasks`, v2
 * through `cgroup.threads` (`cgroup.procs` would move the whole process). */
static const char *threads_file_in(const CgroupCaps *cg) {
        return cg->backend == CGROUP_BACKEND_V1 ? "tasks" : "cgroup.threads";
}

static const char *threads_file(void) {
        return threads_file_in(&kernel_caps()->cgroup);
}

static int attr_path(const char *dir, const char *file, char *buf, size_t size) {
        int n = snprintf(buf, size, "%s/%s", dir, file);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static int attr_write(const char *dir, const char *file, const char *value) {
        char path[GROUP_PATH_MAX];
        int r = attr_path(dir, file, path, sizeof path);
        return r < 0 ? r : write_small_file(path, value);
}

static int attr_read_u64(const char *dir, const char *file, uint64_t *ret) {
        char path[GROUP_PATH_MAX], buf[32];
        int r = attr_path(dir, file, path, sizeof path);
        if (r >= 0)
                r = read_small_file(path, buf, sizeof buf, NULL);
        if (r < 0)
                return r;
        return sscanf(buf, "%" SCNu64, ret) == 1 ? 0 : -EIO;
}

/* Write a number and read it back: the kernel may clamp or ignore it. */
static int attr_set_u64(const char *dir, const char *file, uint64_t v) {
        char s[32];
        uint64_t back;
        int r;

        snprintf(s, sizeof s, "%" PRIu64, v);
        r = attr_write(dir, file, s);
        if (r >= 0)
                r = attr_read_u64(dir, file, &back);
        if (r < 0)
                return r;
        return back == v ? 0 : -EOPNOTSUPP;
}

/* Weights are given in cgroup v2 units (cpu.weight, 100 = a default
 * group, as systemd's CPUWeight=); v1's cpu.shares has 1024 for that. */
static int set_weight(const char *dir, unsigned weight) {
        uint64_t shares = weight * 1024ull / 100;
        if (is_v1())
                return attr_set_u64(dir, "cpu.shares", shares < 2 ? 2 : shares); /* v1's minimum */
        return attr_set_u64(dir, "cpu.weight", weight);
}

/* The kernel refuses a weight while a group is idle (and reads back 3), so
 * idle is cleared first and set last. Without cpu.idle the lowest weight,
 * set before, is the fallback. */
static int set_share(const char *dir, const ClassKnobs *k) {
        uint64_t idle = 0;
        bool has_idle = kernel_caps()->cgroup.idle && attr_read_u64(dir, "cpu.idle", &idle) >= 0;
        int r;

        if (has_idle && idle && k->group_idle)
                return 0;
        if (has_idle && idle) {
                r = attr_set_u64(dir, "cpu.idle", 0);
                if (r < 0)
                        return r;
        }
        r = set_weight(dir, k->group_idle ? 1 : k->group_weight);
        if (r < 0 || !k->group_idle || !has_idle)
                return r;
        return attr_set_u64(dir, "cpu.idle", 1);
}

/* With CONFIG_RT_GROUP_SCHED (v1), a group without a real-time budget
 * refuses SCHED_FIFO/RR to its threads: rtkit could no longer make an
 * audio thread real-time once qosd moved it. Best effort: the budgets of a
 * parent's children may not exceed its own, and another manager may hold
 * some; the group works without it. */
static void set_rt_budget(const CgroupCaps *cg, const char *dir, const ClassKnobs *k, bool fresh) {
        if (!cg->rt_runtime || k->group_rt_pct == 0)
                return;
        int r = attr_set_u64(dir, "cpu.rt_runtime_us", (uint64_t) RT_PERIOD_US * k->group_rt_pct / 100);
        /* A group removed a moment ago (by a qosd that just stopped, say)
         * holds its budget until the kernel frees it, tens to hundreds of
         * ms later: a group made now waits that long for it. Else a qosd
         * restarted at once would find its groups without budget and go
         * without groups for its whole run. */
        for (int i = 0; fresh && r == -EINVAL && i < RT_BUDGET_TRIES; i++) {
                (void) usleep(RT_BUDGET_WAIT_USEC);
                r = attr_set_u64(dir, "cpu.rt_runtime_us", (uint64_t) RT_PERIOD_US * k->group_rt_pct / 100);
        }
        if (r < 0)
                log_debug_errno(r, "%s: no real-time budget, its threads cannot become real-time: %m", dir);
}

const char *group_uclamp_percent(int value, char *buf, size_t size) {
        if (value >= 1024)
                snprintf(buf, size, "max");
        else {
                unsigned hundredths = ((unsigned) (value < 0 ? 0 : value) * 10000u + 512) / 1024;
                snprintf(buf, size, "%u.%02u", hundredths / 100, hundredths % 100);
        }
        return buf;
}

/* Write a cgroup attribute and read it back as text. */
static int attr_set_text(const char *dir, const char *file, const char *v) {
        char path[GROUP_PATH_MAX], back[32];
        int r = attr_write(dir, file, v);
        if (r >= 0)
                r = attr_path(dir, file, path, sizeof path);
        if (r >= 0)
                r = read_small_file(path, back, sizeof back, NULL);
        if (r < 0)
                return r;
        back[strcspn(back, "\n")] = '\0';
        return strcmp(back, v) == 0 ? 0 : -EOPNOTSUPP;
}

/* Set when a group of ours was found without the clamp files. */
static bool uclamp_missing;

bool group_uclamp_missing(void) {
        return uclamp_missing;
}

/* The class's utilization clamps for the group as a whole (cpu.uclamp.min
 * and .max, v1 and v2 alike, CONFIG_UCLAMP_TASK_GROUP): they bound what
 * the group's threads' own clamps can ask. Best effort, like the budget;
 * the daemon reports a kernel without them (group_uclamp_missing()). */
static void set_uclamp(const char *dir, const ClassKnobs *k) {
        char path[GROUP_PATH_MAX], v[16];
        const struct { const char *file; int value; } clamps[] = {
                { "cpu.uclamp.min", k->uclamp_min },
                { "cpu.uclamp.max", k->uclamp_max },
        };

        for (size_t i = 0; i < ELEMENTSOF(clamps); i++) {
                if (attr_path(dir, clamps[i].file, path, sizeof path) < 0)
                        return;
                if (access(path, F_OK) < 0) {
                        uclamp_missing = true;
                        return;
                }
                int r = attr_set_text(dir, clamps[i].file, group_uclamp_percent(clamps[i].value, v, sizeof v));
                if (r < 0)
                        log_debug_errno(r, "%s: cannot set %s to %s: %m", dir, clamps[i].file, v);
        }
}

/* Make the directory of a group (threaded on v2) and give it its
 * real-time budget; 1 if it was made now, 0 if it was there. */
static int make_group(const CgroupCaps *cg, QClass c, char *dir, size_t size) {
        int made = 0, r = group_dir_in(cg, c, dir, size);
        if (r < 0)
                return r;
        if (mkdir(dir, 0755) < 0) {
                if (errno != EEXIST)
                        return negative_errno();
        } else {
                made = 1;
                r = cg->backend == CGROUP_BACKEND_V1 ? 0 : attr_write(dir, "cgroup.type", "threaded");
                if (r < 0) {
                        (void) rmdir(dir);
                        return r;
                }
        }
        set_rt_budget(cg, dir, class_knobs(c), made);
        return made;
}

int group_ensure(QClass c) {
        char dir[GROUP_PATH_MAX];
        int r = make_group(&kernel_caps()->cgroup, c, dir, sizeof dir);
        if (r < 0)
                return r;
        set_uclamp(dir, class_knobs(c));
        return set_share(dir, class_knobs(c));
}

static int write_tid(const char *dir, pid_t tid) {
        char s[16];
        snprintf(s, sizeof s, "%d", (int) tid);
        return attr_write(dir, threads_file(), s);
}

int group_move(pid_t tid, QClass c) {
        char dir[GROUP_PATH_MAX];
        int r;

        if (c == QCLASS_UNSPECIFIED) {
                r = write_tid(kernel_caps()->cgroup.mount, tid);
                return r == -ENOENT ? -EOPNOTSUPP : r;
        }
        r = group_dir(c, dir, sizeof dir);
        if (r < 0)
                return r;
        /* Twice: another qosctl may remove the group as empty between our
         * ensure and our write (we then see ENOENT). */
        for (int attempt = 0; attempt < 2; attempt++) {
                r = group_ensure(c);
                if (r < 0)
                        return r;
                r = write_tid(dir, tid);
                if (r != -ENOENT)
                        break;
        }
        return r;
}

int group_remove_if_empty(QClass c) {
        char dir[GROUP_PATH_MAX];
        int r = group_dir(c, dir, sizeof dir);
        if (r < 0)
                return r;
        if (rmdir(dir) < 0 && errno != ENOENT)
                return negative_errno();
        return 0;
}

int group_remove_all_empty(void) {
        int left = 0;
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                if (class_has_group(c) && group_remove_if_empty(c) < 0)
                        left++;
        return left;
}

/* The TIDs in a group. Read whole: a group may hold thousands. */
static int list_tids(const char *dir, pid_t **ret, size_t *ret_n) {
        char path[GROUP_PATH_MAX];
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0, cap = 0;
        int tid;

        int r = attr_path(dir, threads_file(), path, sizeof path);
        if (r < 0)
                return r;
        f = fopen(path, "re");
        if (!f)
                return negative_errno();
        while (fscanf(f, "%d", &tid) == 1) {
                if (n == cap) {
                        cap = cap ? cap * 2 : 64;
                        pid_t *t = realloc(tids, cap * sizeof *t);
                        if (!t)
                                return -ENOMEM;
                        tids = t;
                }
                tids[n++] = tid;
        }
        *ret = TAKE_PTR(tids);
        *ret_n = n;
        return 0;
}

int group_recover(GroupKeepFn keep, void *userdata) {
        char dir[GROUP_PATH_MAX];
        int moved = 0;

        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++) {
                _cleanup_free_ pid_t *tids = NULL;
                size_t n;

                if (!class_has_group(c) || group_dir(c, dir, sizeof dir) < 0)
                        continue;
                int r = list_tids(dir, &tids, &n);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return log_error_errno(r, "cannot list %s: %m", dir);
                for (size_t i = 0; i < n; i++) {
                        if (keep && keep(tids[i], c, userdata))
                                continue;
                        r = group_move(tids[i], QCLASS_UNSPECIFIED);
                        if (r >= 0)
                                moved++;
                        else if (r != -ESRCH)
                                log_warning_errno(r, "cannot move thread %d out of %s: %m", (int) tids[i], dir);
                }
                (void) group_remove_if_empty(c);
        }
        return moved;
}

/* Put the calling thread into class c's group, ask for real-time, and
 * take it back to the root. *made: the group was made for this. */
static int probe_one(const CgroupCaps *cg, QClass c, bool *made) {
        char dir[GROUP_PATH_MAX], self[16];
        int r = make_group(cg, c, dir, sizeof dir);
        if (r < 0)
                return r;
        *made = r > 0;
        snprintf(self, sizeof self, "%d", (int) gettid());
        r = attr_write(dir, threads_file_in(cg), self);
        if (r >= 0) {
                r = sys_try_realtime_self();
                r = r == -EPERM ? 0 : r < 0 ? r : 1;
                (void) attr_write(cg->mount, threads_file_in(cg), self);
        }
        return r;
}

int group_rt_probe(const CgroupCaps *cg, bool keep) {
        bool made[_QCLASS_MAX] = {};
        char dir[GROUP_PATH_MAX];
        int r = 1;

        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX && r > 0; c++)
                if (class_has_group(c))
                        r = probe_one(cg, c, &made[c]);
        /* Kept for qosd if all passed: it would make them again at once,
         * and a group removed holds its budget for a while. */
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX && (r <= 0 || !keep); c++)
                if (made[c] && group_dir_in(cg, c, dir, sizeof dir) >= 0)
                        (void) rmdir(dir);
        return r;
}
