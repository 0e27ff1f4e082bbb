/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/kernel-caps.h"
#include "core/knob-table.h"

static bool has_cap_sys_nice(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};
        if (syscall(SYS_capget, &h, d) < 0)
                return false;
        return d[CAP_SYS_NICE / 32].effective & (1u << (CAP_SYS_NICE % 32));
}

/* Each knob's probe, on the throwaway thread. */
static void *probe_thread(void *userdata) {
        KernelCaps *caps = userdata;

        for (Knob k = 0; k < _KNOB_MAX; k++)
                knob_row(k)->probe(caps);
        return NULL;
}

static bool rt_groups_wanted, rt_groups_kept;
static bool cpu_kinds_given;
static CpuKinds cpu_kinds_wanted;

void kernel_caps_use_cpu_kinds(const CpuKinds *k) {
        cpu_kinds_wanted = *k;
        cpu_kinds_given = true;
}

void kernel_caps_probe_rt_groups(bool keep_groups) {
        rt_groups_wanted = true;
        rt_groups_kept = keep_groups;
}

void kernel_caps_probe(KernelCaps *caps) {
        pthread_t t;

        *caps = (KernelCaps) {};
        caps->privileged = has_cap_sys_nice();
        /* Before the knobs: the group knob's probe reads it. */
        cgroup_caps_probe(&caps->cgroup);
        /* Probe on a throwaway thread so that the caller's own attributes
         * are never touched, even for a moment. */
        caps->probe_rt_groups = rt_groups_wanted;
        caps->keep_probed_groups = rt_groups_kept;
        caps->cpu_kinds_known = cpu_kinds_given;
        caps->cpu_kinds = cpu_kinds_wanted;
        if (pthread_create(&t, NULL, probe_thread, caps) == 0)
                pthread_join(t, NULL);
        else {
                caps->probe_rt_groups = false; /* it would move the caller's own thread */
                probe_thread(caps);
        }
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
        const char *why;

        if (caps->supported[k])
                return "supported";
        why = knob_row(k)->reason ? knob_row(k)->reason(caps) : NULL;
        if (why)
                return why;
        switch (-caps->error[k]) {
        case EOPNOTSUPP:
                return "not built into this kernel";
        case EINVAL:
        case E2BIG:
                return "kernel does not know this attribute";
        case EPERM:
                return "could not be probed without privilege";
        default:
                return "probe failed";
        }
}
