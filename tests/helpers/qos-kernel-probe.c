/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tests' own answer to "does this kernel have FEATURE?", found with raw
 * system calls and the kernel's UAPI headers, independently of src/core. A
 * test that expects qosd to report a knob as unsupported asks here first,
 * so a probe in core that wrongly says "unsupported" everywhere still fails
 * the test on a kernel that has the feature.
 *
 *   qos-kernel-probe slice|uclamp|proc-connector|sched-ext
 *
 * Prints "supported" or "unsupported: WHY" and exits 0; 2 on usage errors.
 *
 *   qos-kernel-probe util-clamp TID
 *
 * Prints the thread's "sched_util_min sched_util_max" as sched_getattr
 * reports them (exit 1 if it cannot).
 */
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int result(const char *why) {
        if (why)
                printf("unsupported: %s\n", why);
        else
                printf("supported\n");
        return 0;
}

static int setattr_self(struct sched_attr *a) {
        a->size = sizeof *a;
        return (int) syscall(SYS_sched_setattr, 0, a, 0);
}

/* 6.1 (CFS) takes sched_runtime on SCHED_NORMAL without complaint and
 * drops it; only reading it back tells. */
static int probe_slice(void) {
        struct sched_attr a = { .sched_policy = SCHED_NORMAL, .sched_runtime = 2718281 };
        if (setattr_self(&a) < 0)
                return result(strerror(errno));
        memset(&a, 0, sizeof a);
        if (syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) < 0)
                return result(strerror(errno));
        if (a.sched_runtime != 2718281)
                return result("accepted but not kept");
        return result(NULL);
}

static int probe_uclamp(void) {
        struct sched_attr a = {
                .sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP_MAX,
                .sched_util_max = 1024,
        };
        return result(setattr_self(&a) < 0 ? strerror(errno) : NULL);
}

static int probe_sched_ext(void) {
        return result(access("/sys/kernel/sched_ext/state", F_OK) < 0
                              ? "no /sys/kernel/sched_ext (CONFIG_SCHED_CLASS_EXT)" : NULL);
}

/* The clamps the kernel holds for a thread: what a test compares with the
 * class table, read without qosctl. */
static int util_clamp(const char *tid) {
        struct sched_attr a;
        memset(&a, 0, sizeof a);
        if (syscall(SYS_sched_getattr, atoi(tid), &a, sizeof a, 0) < 0) {
                fprintf(stderr, "sched_getattr %s: %s\n", tid, strerror(errno));
                return 1;
        }
        printf("%u %u\n", a.sched_util_min, a.sched_util_max);
        return 0;
}

/* Listen with the 4-byte operation every kernel knows, start a child, and
 * wait for its fork event. Root only, as in the kernels before 6.6. */
static int probe_proc_connector(void) {
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = (unsigned) getpid() };
        struct {
                struct nlmsghdr nl;
                struct cn_msg cn;
                enum proc_cn_mcast_op op;
        } __attribute__((packed)) req = {
                .nl = { .nlmsg_len = sizeof req, .nlmsg_type = NLMSG_DONE, .nlmsg_pid = (unsigned) getpid() },
                .cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .len = sizeof(enum proc_cn_mcast_op) },
                .op = PROC_CN_MCAST_LISTEN,
        };
        int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
        if (fd < 0)
                return result(strerror(errno));
        if (bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0 || send(fd, &req, sizeof req, 0) < 0)
                return result(strerror(errno));

        pid_t child = fork();
        if (child < 0)
                return result(strerror(errno));
        if (child == 0)
                _exit(0);
        waitpid(child, NULL, 0);

        struct pollfd p = { .fd = fd, .events = POLLIN };
        char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
        while (poll(&p, 1, 2000) > 0) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);
                if (n < (ssize_t) NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(struct proc_event)))
                        continue;
                struct cn_msg *cn = NLMSG_DATA((struct nlmsghdr *) buf);
                struct proc_event *ev = (struct proc_event *) cn->data;
                if (ev->what == PROC_EVENT_FORK && ev->event_data.fork.child_pid == child)
                        return result(NULL);
        }
        return result("no fork event within 2 s");
}

int main(int argc, char **argv) {
        static const struct {
                const char *name;
                int (*probe)(void);
        } probes[] = {
                { "slice", probe_slice },
                { "uclamp", probe_uclamp },
                { "proc-connector", probe_proc_connector },
                { "sched-ext", probe_sched_ext },
        };
        if (argc == 3 && strcmp(argv[1], "util-clamp") == 0)
                return util_clamp(argv[2]);
        for (size_t i = 0; argc == 2 && i < sizeof probes / sizeof probes[0]; i++)
                if (strcmp(argv[1], probes[i].name) == 0)
                        return probes[i].probe();
        fprintf(stderr, "Usage: qos-kernel-probe slice|uclamp|proc-connector|sched-ext\n"
                        "       qos-kernel-probe util-clamp TID\n");
        return 2;
}
