/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl classes: the class table as it applies on this kernel. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config/cpu-kinds-conf.h"
#include "core/class-table.h"
#include "cli/cli.h"
#include "core/group.h"
#include "core/kernel-caps.h"

static void print_header(const KernelCaps *caps) {
        struct utsname u;
        char slice[32] = "unknown";
        TaskAttr t = { .slice_ns = caps->default_slice_ns };

        if (caps->default_slice_ns)
                task_attr_format_knob(&t, KNOB_SLICE, slice, sizeof slice);
        uname(&u);
        printf("kernel %s, %ld CPUs, default slice %s, caller %s\n\n", u.release,
               sysconf(_SC_NPROCESSORS_ONLN), slice,
               caps->privileged ? "privileged (may raise classes)" : "unprivileged (may only lower classes)");
}

/* Where the group knob acts, and what threads without a group compete as. */
static void print_groups(const KernelCaps *caps) {
        char where[CGROUP_MOUNT_MAX + 96];

        printf("\ngroups: %s", cgroup_caps_describe(&caps->cgroup, where, sizeof where));
        if (caps->supported[KNOB_GROUP])
                printf(", as %s/%s.<class>", caps->cgroup.mount, group_prefix());
        if (caps->cgroup.systemd_units)
                printf("\nsystemd units: systemd runs this machine (cgroup v2), so applications sit in its units;\n"
                       "  qosd gives a process's own unit its class's CPUWeight and moves background work\n"
                       "  out of shared units into idle scopes in qos.slice (qosd(8), SystemdUnits=)");
        else
                printf("\nsystemd units: not used (systemd does not run this machine on cgroup v2 with cpu)");
        printf("\nautogroup: %s\n",
               caps->cgroup.autogroup ? "on: a thread outside a group competes as part of its session"
                                      : "off: a thread outside a group competes with every thread");
}

/* The kinds of CPU, as qosd finds them: the kernel's word, or qosd.conf's. */
static void print_cpus(const char *sys) {
        CpuKinds k;
        char buf[512], note[512];

        cpu_kinds_for_root(cli_root(), sys, &k, note, sizeof note);
        printf("cpus: %s (%s)%s%s\n", cpu_kinds_describe(&k, buf, sizeof buf), k.why, *note ? "; " : "", note);
}

int cmd_classes(int argc, char **argv) {
        enum { OPT_SYS = 0x100 };
        static const struct option opts[] = {
                { "help", no_argument, NULL, 'h' },
                { "sys", required_argument, NULL, OPT_SYS },
                {},
        };
        const char *sys = "/sys";
        const KernelCaps *caps;
        char buf[32];
        int c;

        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
                if (c == 'h') {
                        printf("Usage: qosctl classes [--sys DIR]\n\n"
                               "Show every knob of every class and whether this kernel supports it,\n"
                               "and which CPUs are fast and which efficient. Values in parentheses\n"
                               "are not applied here.\n\n"
                               "  --sys DIR   read the CPUs from DIR instead of /sys (a copy of\n"
                               "              another machine's, say)\n");
                        return EXIT_OK;
                }
                if (c == OPT_SYS) {
                        sys = optarg;
                        continue;
                }
                return EXIT_USAGE;
        }
        /* As qosd finds it; the probe's groups are not kept for a look. */
        kernel_caps_probe_rt_groups(false);
        cli_use_cpu_kinds(sys);
        caps = kernel_caps();

        print_header(caps);
        printf("%-13s", "KNOB");
        for (QClass q = _QCLASS_MAX - 1; q > QCLASS_UNSPECIFIED; q--)
                printf(" %-17s", qclass_to_string(q));
        printf(" %s\n", "ON THIS KERNEL");

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                printf("%-13s", knob_to_string(k));
                for (QClass q = _QCLASS_MAX - 1; q > QCLASS_UNSPECIFIED; q--) {
                        class_format_knob(q, k, buf, sizeof buf);
                        if (caps->supported[k])
                                printf(" %-17s", buf);
                        else {
                                char wrapped[40];
                                snprintf(wrapped, sizeof wrapped, "(%s)", buf);
                                printf(" %-17s", wrapped);
                        }
                }
                printf(" %s\n", caps->supported[k] ? "supported" : kernel_caps_reason(caps, k));
        }
        printf("%-13s", "on fork");
        for (QClass q = _QCLASS_MAX - 1; q > QCLASS_UNSPECIFIED; q--)
                printf(" %-17s", class_knobs(q)->reset_on_fork ? "reset" : "inherited");
        printf(" %s\n", "reset-on-fork: children start at utility");
        print_groups(caps);
        print_cpus(sys);
        return EXIT_OK;
}
