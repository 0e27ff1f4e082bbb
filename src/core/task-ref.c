/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/macro.h"
#include "core/proc.h"
#include "core/task-ref.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

static int pidfd_open_thread(pid_t tid) {
        int fd = (int) syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
        return fd < 0 ? negative_errno() : fd;
}

int task_ref_open(pid_t tid, uint64_t expected_start, TaskRef *ret) {
        TaskRef ref = { .tid = tid, .pidfd = -1 };
        int r;

        if (tid <= 0)
                return -EINVAL;
        r = pidfd_open_thread(tid);
        if (r == -ESRCH)
                return r;
        ref.pidfd = r >= 0 ? r : -1; /* EINVAL before 6.9: fall back to start times */

        r = proc_start_time(tid, &ref.start_time);
        if (r >= 0)
                r = task_ref_alive(&ref); /* the start time read belongs to the pidfd's task */
        if (r >= 0 && expected_start != 0 && ref.start_time != expected_start)
                r = -ESRCH;
        if (r < 0) {
                task_ref_close(&ref);
                return r;
        }
        *ret = ref;
        return 0;
}

void task_ref_close(TaskRef *ref) {
        if (ref->pidfd >= 0)
                close(ref->pidfd);
        ref->pidfd = -1;
}

int task_ref_alive(const TaskRef *ref) {
        if (ref->pidfd >= 0) {
                struct pollfd p = { .fd = ref->pidfd, .events = POLLIN };
                int n = poll(&p, 1, 0);
                if (n < 0)
                        return negative_errno();
                return n > 0 ? -ESRCH : 0; /* readable: exited */
        }
        uint64_t st;
        int r = proc_start_time(ref->tid, &st);
        if (r < 0)
                return r;
        return st == ref->start_time ? 0 : -ESRCH;
}

int task_ref_apply(const TaskRef *ref, const TaskAttr *want, unsigned mask, ApplyResult *ret) {
        int r = task_apply_attr(ref->tid, want, mask, ret);
        if (r < 0 && r != -EBUSY)
                return r;
        int alive = task_ref_alive(ref);
        return alive < 0 ? alive : r;
}

int task_ref_read_attr(const TaskRef *ref, TaskAttr *ret) {
        int r = task_attr_read(ref->tid, ret);
        if (r < 0)
                return r;
        return task_ref_alive(ref);
}

/* The kernel's PF_EXITING (include/linux/sched.h), as /proc/TID/stat
 * shows it in field 9. */
#define TASK_FLAG_EXITING 0x00000004u

bool task_ref_exiting(const TaskRef *ref) {
        ProcStat st;
        if (task_ref_alive(ref) < 0 || proc_read_stat(0, ref->tid, &st) < 0 || st.start_time != ref->start_time)
                return true;
        return st.flags & TASK_FLAG_EXITING;
}
