/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/kernel-caps.h"
#include "core/macro.h"
#include "core/sched-syscall.h"

/* Far from any default and inside the kernel's 0.1-100 ms clamp. */
#define PROBE_SLICE_NS 3141000ull

static bool has_cap_sys_nice(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};
        if (syscall(SYS_capget, &h, d) < 0)
                return false;
        return d[CAP_SYS_NICE / 32].effective & (1u << (CAP_SYS_NICE % 32));
}

static int set_and_read_back(pid_t tid, const struct qos_sched_attr *a, struct qos_sched_attr *back) {
        int r = sys_sched_setattr(tid, a);
        return r < 0 ? r : sys_sched_getattr(tid, back);
}

/* kthreadd never has a custom slice, and any caller may read its attributes:
 * on 6.12+ sched_getattr reports its slice, which is the default; older
 * kernels, which have no custom slices, report 0 there. -ESRCH where PID 2
 * is not kthreadd (a PID namespace). */
static int kthreadd_slice(uint64_t *ret) {
        struct qos_sched_attr a;
        char comm[32] = "";
        FILE *f = fopen("/proc/2/comm", "re");
        if (f) {
                if (!fgets(comm, sizeof comm, f))
                        comm[0] = '\0';
                fclose(f);
        }
        if (strcmp(comm, "kthreadd\n") != 0 || sys_sched_getattr(2, &a) < 0)
                return -ESRCH;
        *ret = a.sched_runtime;
        return 0;
}

/* Try a slice on the probe thread and read it back. SCHED_IDLE ignores
 * sched_runtime, so an idle probe thread first moves to SCHED_BATCH, which
 * needs privilege; without it the answer comes from kthreadd. */
static void probe_slice(KernelCaps *caps) {
        struct qos_sched_attr cur, a, back;
        pid_t self = gettid();
        int r;

        /* Read-only where kthreadd answers with a slice (6.12+): a probe
         * thread of a program qosd manages is one of its threads, and a
         * passing 3.141 ms slice on it would read as someone else's change. */
        if (kthreadd_slice(&caps->default_slice_ns) >= 0 && caps->default_slice_ns > 0) {
                caps->supported[KNOB_SLICE] = true;
                return;
        }
        r = sys_sched_getattr(self, &cur);
        if (r < 0)
                goto unsupported;
        if (cur.sched_policy != SCHED_OTHER && cur.sched_policy != SCHED_BATCH) {
                a = (struct qos_sched_attr) { .sched_policy = SCHED_BATCH, .sched_nice = cur.sched_nice };
                r = sys_sched_setattr(self, &a);
                if (r == -EPERM) {
                        /* Only a kernel without custom slices reports none
                         * for kthreadd (6.1 must not read as "needs privilege"). */
                        r = kthreadd_slice(&caps->default_slice_ns);
                        if (r < 0)
                                r = -EPERM;
                        else if (caps->default_slice_ns == 0)
                                r = -EOPNOTSUPP;
                        caps->supported[KNOB_SLICE] = r >= 0;
                        caps->error[KNOB_SLICE] = r < 0 ? r : 0;
                        return;
                }
                if (r < 0)
                        goto unsupported;
                cur.sched_policy = SCHED_BATCH;
        }
        a = (struct qos_sched_attr) {
                .sched_policy = cur.sched_policy,
                .sched_nice = cur.sched_nice,
                .sched_flags = cur.sched_flags & SCHED_FLAG_RESET_ON_FORK,
                .sched_runtime = PROBE_SLICE_NS,
        };
        r = set_and_read_back(self, &a, &back);
        if (r < 0)
                goto unsupported;
        /* 6.1 (CFS) accepts sched_runtime and reads back 0: not supported. */
        if (back.sched_runtime != PROBE_SLICE_NS) {
                r = -EOPNOTSUPP;
                goto unsupported;
        }
        a.sched_runtime = 0;
        r = set_and_read_back(self, &a, &back);
        if (r < 0)
                goto unsupported;
        caps->supported[KNOB_SLICE] = true;
        caps->default_slice_ns = back.sched_runtime;
        return;

unsupported:
        caps->supported[KNOB_SLICE] = false;
        caps->error[KNOB_SLICE] = r;
}

static void probe_uclamp(KernelCaps *caps) {
        struct qos_sched_attr cur, a;
        pid_t self = gettid();
        int r;

        r = sys_sched_getattr(self, &cur);
        if (r >= 0) {
                /* The kernel checks priority and nice even when told to
                 * keep them: a real-time thread given priority 0 gets
                 * EINVAL, which would read as "no uclamp", and a niced
                 * unprivileged one given nice 0 gets EPERM. */
                a = (struct qos_sched_attr) {
                        .sched_policy = cur.sched_policy,
                        .sched_nice = cur.sched_nice,
                        .sched_priority = cur.sched_priority,
                        .sched_flags = SCHED_FLAG_KEEP_ALL_ | SCHED_FLAG_UTIL_CLAMP_MIN |
                                       SCHED_FLAG_UTIL_CLAMP_MAX,
                        .sched_util_min = cur.sched_util_min,
                        .sched_util_max = cur.sched_util_max ?: 1024,
                };
                r = sys_sched_setattr(self, &a);
        }
        /* EPERM means the kernel has clamps but this caller may not set
         * them; only EOPNOTSUPP/EINVAL mean the kernel lacks them. */
        caps->supported[KNOB_UCLAMP] = r >= 0 || r == -EPERM;
        caps->error[KNOB_UCLAMP] = r < 0 ? r : 0;
}

static void probe_ioprio(KernelCaps *caps) {
        int r = sys_ioprio_get(gettid());
        if (r >= 0)
                r = sys_ioprio_set(gettid(), r);
        caps->supported[KNOB_IOPRIO] = r >= 0;
        caps->error[KNOB_IOPRIO] = r < 0 ? r : 0;
}

static void probe_timer_slack(KernelCaps *caps) {
        uint64_t ns;
        int r = sys_timer_slack_get(gettid(), &ns);
        caps->supported[KNOB_TIMER_SLACK] = r >= 0;
        caps->error[KNOB_TIMER_SLACK] = r < 0 ? r : 0;
}

static void *probe_thread(void *userdata) {
        KernelCaps *caps = userdata;

        caps->supported[KNOB_POLICY] = true;
        caps->supported[KNOB_NICE] = true;
        probe_slice(caps);
        probe_uclamp(caps);
        probe_ioprio(caps);
        probe_timer_slack(caps);
        /* No kernel has a ramp-up interface yet; the knob stays in the table
         * so that one that gains it needs only a probe here. */
        caps->supported[KNOB_RAMPUP] = false;
        caps->error[KNOB_RAMPUP] = -EOPNOTSUPP;
        return NULL;
}

void kernel_caps_probe(KernelCaps *caps) {
        pthread_t t;

        *caps = (KernelCaps) {};
        caps->privileged = has_cap_sys_nice();
        /* Found from the mount table and the files: creating a group to try
         * needs root, and the values are read back when a group is made. */
        cgroup_caps_probe(&caps->cgroup);
        caps->supported[KNOB_GROUP] = caps->cgroup.backend != CGROUP_BACKEND_NONE;
        caps->error[KNOB_GROUP] = caps->supported[KNOB_GROUP] ? 0 : -EOPNOTSUPP;
        /* Probe on a throwaway thread so that the caller's own attributes
         * are never touched, even for a moment. */
        if (pthread_create(&t, NULL, probe_thread, caps) == 0)
                pthread_join(t, NULL);
        else
                probe_thread(caps);
}

static KernelCaps cached_caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

static void caps_init(void) {
        kernel_caps_probe(&cached_caps);
}

const KernelCaps *kernel_caps(void) {
        pthread_once(&caps_once, caps_init);
        return &cached_caps;
}

const char *kernel_caps_reason(const KernelCaps *caps, Knob k) {
        if (caps->supported[k])
                return "supported";
        if (k == KNOB_RAMPUP)
                return "no kernel interface yet";
        if (k == KNOB_GROUP)
                return cgroup_missing_to_string(caps->cgroup.missing);
        switch (-caps->error[k]) {
        case EOPNOTSUPP:
                return k == KNOB_SLICE ? "kernel ignores sched_runtime (no EEVDF custom slices)"
                                       : "not built into this kernel";
        case EINVAL:
        case E2BIG:
                return "kernel does not know this attribute";
        case EPERM:
                return "could not be probed without privilege";
        default:
                return "probe failed";
        }
}
