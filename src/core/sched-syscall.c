/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/macro.h"
#include "core/sched-syscall.h"

int sys_sched_setattr(pid_t tid, const struct qos_sched_attr *attr) {
        struct qos_sched_attr a = *attr;
        a.size = sizeof a;
        if (syscall(SYS_sched_setattr, tid, &a, 0) < 0)
                return negative_errno();
        return 0;
}

int sys_sched_getattr(pid_t tid, struct qos_sched_attr *attr) {
        memset(attr, 0, sizeof *attr);
        if (syscall(SYS_sched_getattr, tid, attr, sizeof *attr, 0) < 0)
                return negative_errno();
        return 0;
}

int sys_set_nice(pid_t tid, int nice) {
        if (setpriority(PRIO_PROCESS, (id_t) tid, nice) < 0)
                return negative_errno();
        return 0;
}

int sys_ioprio_get(pid_t tid) {
        long r = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, tid);
        if (r < 0)
                return negative_errno();
        return (int) r;
}

int sys_ioprio_set(pid_t tid, int ioprio) {
        if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, tid, ioprio) < 0)
                return negative_errno();
        return 0;
}

static int timer_slack_path(pid_t tid, char *buf, size_t size) {
        int n = snprintf(buf, size, "/proc/%d/timerslack_ns", (int) tid);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

int sys_timer_slack_get(pid_t tid, uint64_t *ret_ns) {
        char path[64], line[32];
        _cleanup_close_ int fd = -1;
        ssize_t n;

        if (tid == gettid()) {
                int r = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
                if (r < 0)
                        return negative_errno();
                *ret_ns = (uint64_t) r;
                return 0;
        }
        if (timer_slack_path(tid, path, sizeof path) < 0)
                return -ENAMETOOLONG;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        n = read(fd, line, sizeof line - 1);
        if (n < 0)
                return negative_errno();
        line[n] = '\0';
        if (sscanf(line, "%" SCNu64, ret_ns) != 1)
                return -EIO;
        return 0;
}

int sys_timer_slack_set(pid_t tid, uint64_t ns) {
        char path[64], line[32];
        _cleanup_close_ int fd = -1;
        int len;

        if (tid == gettid()) {
                if (prctl(PR_SET_TIMERSLACK, (unsigned long) ns, 0, 0, 0) < 0)
                        return negative_errno();
                return 0;
        }
        if (timer_slack_path(tid, path, sizeof path) < 0)
                return -ENAMETOOLONG;
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        len = snprintf(line, sizeof line, "%" PRIu64, ns);
        if (write(fd, line, (size_t) len) != len)
                return negative_errno();
        return 0;
}

int sys_affinity_get(pid_t tid, CpuMask *ret) {
        cpu_set_t set;
        CpuMask m = {};
        if (sched_getaffinity(tid, sizeof set, &set) < 0)
                return negative_errno();
        for (unsigned c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &set)) {
                        if (c >= CPU_MASK_MAX)
                                return -ERANGE;
                        cpu_mask_set(&m, c);
                }
        *ret = m;
        return 0;
}

int sys_affinity_set(pid_t tid, const CpuMask *m) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (unsigned c = 0; c < CPU_MASK_MAX; c++)
                if (cpu_mask_test(m, c))
                        CPU_SET(c, &set);
        return sched_setaffinity(tid, sizeof set, &set) < 0 ? negative_errno() : 0;
}

int sys_try_realtime_self(void) {
        struct sched_param rt = { .sched_priority = 1 }, other = {};
        if (sched_setscheduler(0, SCHED_FIFO, &rt) < 0)
                return negative_errno();
        (void) sched_setscheduler(0, SCHED_OTHER, &other);
        return 0;
}
