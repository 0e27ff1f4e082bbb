/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One thread, one class, all or nothing: as root every class is applied;
 * without privilege the demotions (task_plan_own_change(), as libqos
 * decides its fast path), while a promotion is left whole to qosd, so a
 * thread is never left half-way between two classes for qosd to take for
 * someone else's change. */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/class-table.h"
#include "core/kernel-caps.h"
#include "preload/preload.h"
#include "core/proc.h"
#include "core/task-apply.h"
#include "core/task-privilege.h"

/* A rename racing with our apply (the creator renames a thread that is
 * still in its trampoline) is caught by reading the name again afterwards:
 * whoever applied last saw the last name. Two rounds settle any ordering
 * of one rename against one start; more are a program renaming in a loop. */
#define MAX_ROUNDS 4

static int read_name(pid_t tid, bool self, char name[PROC_COMM_MAX]) {
        prctl_fn get = real_prctl();
        if (!self)
                return proc_comm(getpid(), tid, name);
        if (!get)
                return -ENOSYS;
        memset(name, 0, PROC_COMM_MAX);
        return get(PR_GET_NAME, (unsigned long) name, 0, 0, 0) < 0 ? negative_errno() : 0;
}

/* The one place that will ask qosd's broker (SetThreadClass on
 * org.qosd.QoS1.Manager) for what the kernel refused us. Until the daemon
 * has it, qosd applies the same rule from its own event a moment later. */
static int ask_qosd(pid_t tid, QClass c) {
        return -EOPNOTSUPP;
}

/* -EPERM: needs privilege (asked of qosd), -EBUSY: real-time (left alone). */
static int apply_class(pid_t tid, bool self, QClass c, ApplyResult *res) {
        TaskAttr cur, want;
        /* Never the group, as in libqos: qosd's cpu groups are the
         * system's, and qosd puts a thread in its class's group itself. */
        unsigned mask = KNOBS_ALL & ~KNOB_BIT(KNOB_GROUP);
        int r = task_attr_read_knobs(tid, mask, &cur);
        if (r < 0)
                return r;
        if (task_attr_is_realtime(&cur))
                return -EBUSY;
        class_target_attr(c, kernel_caps(), &want);
        if (task_plan_own_change(&cur, self, &want, &mask)) {
                (void) ask_qosd(tid, c);
                return -EPERM;
        }
        return task_apply_attr_from(tid, &cur, &want, mask, res);
}

static uint64_t thread_cpu_ns(void) {
        struct timespec ts;
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
                return 0;
        return (uint64_t) ts.tv_sec * 1000000000 + (uint64_t) ts.tv_nsec;
}

static void report(pid_t tid, bool self, PreloadEvent ev, const char *name, QClass c, int r,
                   const ApplyResult *res) {
        const char *what;
        if (!preload_log_enabled())
                return;
        if (c == QCLASS_UNSPECIFIED)
                what = "no class";
        else if (r == -EPERM)
                what = "needs privilege, left to qosd";
        else if (r == -EBUSY)
                what = "real-time, left alone";
        else if (r < 0)
                what = strerror(-r);
        else if (res->failed)
                what = "applied, some knobs refused";
        else
                what = res->changed ? "applied" : "already";
        /* For a thread's own events, its CPU time so far: how much ran
         * before the class was there (all of it in libc and here). */
        preload_log("%s tid=%d name=%s class=%s: %s%s%llu", preload_event_to_string(ev), (int) tid,
                    name, qclass_to_string(c), what, self ? " cpu_ns=" : "",
                    self ? (unsigned long long) thread_cpu_ns() : 0ULL);
}

void preload_apply(pid_t tid, bool self, PreloadEvent ev) {
        char name[PROC_COMM_MAX], again[PROC_COMM_MAX];
        int saved = errno, cancel;

        /* Reading another thread's /proc files is a cancellation point;
         * the calls we wrap are not, so neither may we be. */
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
        for (unsigned round = 0; round < MAX_ROUNDS; round++) {
                ApplyResult res = {};
                int r = 0;

                if (read_name(tid, self, name) < 0)
                        break;
                QClass c = preload_verdict(name);
                if (c != QCLASS_UNSPECIFIED)
                        r = apply_class(tid, self, c, &res);
                report(tid, self, ev, name, c, r, &res);
                if (r == -ESRCH || read_name(tid, self, again) < 0 || strcmp(name, again) == 0)
                        break;
        }
        pthread_setcancelstate(cancel, NULL);
        errno = saved;
}
