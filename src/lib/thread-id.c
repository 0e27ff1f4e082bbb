/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "core/macro.h"
#include "lib/thread-id.h"

/*
 * glibc before 2.42 has no pthread_gettid_np(). pthread_getcpuclockid()
 * is the public way there: the clock it returns is the kernel's per-thread
 * CPU clock, whose ID encodes the TID (include/linux/posix-timers.h:
 * ~tid << 3 | CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED); glibc and musl
 * build it that way, and fail with ESRCH for an exited thread.
 */
#define CPUCLOCK_PERTHREAD_SCHED 6
#define CPUCLOCK_TYPE_MASK 7

int thread_id_from_pthread(pthread_t thread, pid_t *ret) {
        clockid_t clock;
        int r = pthread_getcpuclockid(thread, &clock);
        if (r != 0)
                return -r;
        if ((clock & CPUCLOCK_TYPE_MASK) != CPUCLOCK_PERTHREAD_SCHED)
                return -ENOSYS; /* a C library that builds these clocks differently */
        pid_t tid = (pid_t) ~(clock >> 3);
        if (tid <= 0)
                return -ESRCH;
        *ret = tid;
        return 0;
}

/* tgkill() with signal 0 checks that tid is in thread group getpid() and
 * sends nothing: one system call, no /proc. */
int thread_id_check_own(pid_t tid) {
        if (tid <= 0)
                return -ESRCH;
        if (tgkill(getpid(), tid, 0) < 0)
                return errno == ESRCH ? -ESRCH : negative_errno();
        return 0;
}
