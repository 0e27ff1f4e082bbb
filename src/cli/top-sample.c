/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/bus-client.h"
#include "core/bus-protocol.h"
#include "core/class-table.h"
#include "core/fileio.h"
#include "core/kernel-caps.h"
#include "core/macro.h"
#include "core/task-attr.h"
#include "cli/top-sample.h"

#define BUS_TIMEOUT_USEC (2 * 1000000ULL)

static uint64_t clock_ns(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

/* "RUN_NS WAIT_NS SLICES\n": time on a CPU and time waiting on a run
 * queue since the thread started (Documentation/scheduler/sched-stats). */
static int read_schedstat(pid_t pid, pid_t tid, uint64_t *ret_cpu, uint64_t *ret_wait) {
        char path[64], buf[128];
        uint64_t cpu, wait;
        int r;

        snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int) pid, (int) tid);
        r = read_small_file(path, buf, sizeof buf, NULL);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        if (sscanf(buf, "%" SCNu64 " %" SCNu64, &cpu, &wait) != 2)
                return -EIO;
        *ret_cpu = cpu;
        *ret_wait = wait;
        return 0;
}

int top_sample_supported(void) {
        uint64_t cpu, wait;
        pid_t self = getpid();
        return read_schedstat(self, self, &cpu, &wait) < 0 ? -ENOENT : 0;
}

#define PF_KTHREAD 0x00200000 /* include/linux/sched.h: the task is a kernel thread */

/* The name of a thread's process, read once for all its threads (they
 * come one process after another). */
typedef struct ProcessName {
        pid_t pid;
        char name[PROC_COMM_MAX];
} ProcessName;

/* A thread's counters, start time, kind and process name; -ESRCH when it
 * has gone meanwhile. */
static int read_times(TopThread *t, ProcessName *last) {
        ProcStat st;
        int r = proc_read_stat(t->pid, t->tid, &st);
        if (r < 0)
                return r;
        t->start_time = st.start_time;
        t->kernel = st.flags & PF_KTHREAD;
        if (last->pid != t->pid) {
                last->pid = t->pid;
                if (proc_comm(t->pid, t->pid, last->name) < 0)
                        last->name[0] = '\0';
        }
        snprintf(t->process, sizeof t->process, "%s", last->name);
        return read_schedstat(t->pid, t->tid, &t->cpu_ns, &t->wait_ns);
}

static int grow(TopSnapshot *s, size_t *cap) {
        if (s->n < *cap)
                return 0;
        size_t n = *cap ? *cap * 2 : 256;
        TopThread *p = realloc(s->threads, n * sizeof *p);
        if (!p)
                return -ENOMEM;
        s->threads = p;
        *cap = n;
        return 0;
}

/* "group=VALUE" out of qosd's knob list ("policy=idle ... group=qos.background"). */
static void group_from_knobs(const char *knobs, char *buf, size_t size) {
        buf[0] = '\0';
        for (const char *p = knobs; (p = strstr(p, "group=")); p++)
                if (p == knobs || p[-1] == ' ') {
                        p += strlen("group=");
                        snprintf(buf, size, "%.*s", (int) strcspn(p, " "), p);
                        return;
                }
}

static bool wanted(const TopSampler *s, pid_t pid) {
        if (s->n_only == 0)
                return true;
        for (size_t i = 0; i < s->n_only; i++)
                if (s->only[i] == pid)
                        return true;
        return false;
}

static int take_from_daemon(TopSampler *s, TopSnapshot *snap, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        ProcessName last = {};
        size_t cap = 0;
        int r;

        if (!s->bus) {
                r = sd_bus_open_system(&s->bus);
                if (r < 0)
                        return sd_bus_error_set_errnof(error, r, "no system bus: %s", strerror(-r));
                /* A qosd that hangs must not freeze the view for sd-bus's
                 * default 25 s: after this the refresh goes on without it. */
                (void) sd_bus_set_method_call_timeout(s->bus, BUS_TIMEOUT_USEC);
        }
        r = sd_bus_call_method(s->bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, "ListTasks", error,
                               &reply, "b", 1);
        if (r < 0) {
                /* A dropped connection is opened again on the next refresh. */
                if (!sd_bus_is_open(s->bus))
                        s->bus = sd_bus_flush_close_unref(s->bus);
                return r;
        }
        snap->mono_ns = clock_ns(CLOCK_MONOTONIC); /* the counters are read from here on */
        r = cli_task_rows_begin(reply);
        CliTaskRow row;
        while (r >= 0 && (r = cli_task_row_next(reply, &row)) > 0) {
                if (row.pid <= 0 || !wanted(s, row.pid)) /* PID 0: the mark of a cut list */
                        continue;
                if (grow(snap, &cap) < 0)
                        return -ENOMEM;
                TopThread *t = &snap->threads[snap->n];
                *t = (TopThread) { .pid = row.pid, .tid = row.tid };
                if (read_times(t, &last) < 0)
                        continue; /* exited since qosd listed it */
                snprintf(t->comm, sizeof t->comm, "%s", row.comm);
                snprintf(t->class, sizeof t->class, "%s", row.class_name);
                snprintf(t->state, sizeof t->state, "%s", row.state);
                snprintf(t->rule, sizeof t->rule, "%s", row.origin);
                group_from_knobs(row.knobs, t->group, sizeof t->group);
                snap->n++;
        }
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "malformed reply from qosd");
        snap->daemon = true;
        return 0;
}

/* What `qosctl get` shows: the class the attributes amount to. */
static int read_local(pid_t pid, pid_t tid, TopThread *t, ProcessName *last) {
        const KernelCaps *caps = kernel_caps();
        TaskAttr a;
        int r;

        *t = (TopThread) { .pid = pid, .tid = tid };
        r = proc_comm(pid, tid, t->comm);
        if (r >= 0)
                r = task_attr_read(tid, &a);
        if (r >= 0)
                r = read_times(t, last);
        if (r < 0)
                return r;
        QClass q = class_from_attr(&a, caps);
        snprintf(t->class, sizeof t->class, "%s", q ? qclass_to_string(q) : "custom");
        snprintf(t->state, sizeof t->state, "%s", task_attr_is_realtime(&a) ? "realtime" : "unmanaged");
        if (caps->supported[KNOB_GROUP])
                task_attr_format_knob(&a, KNOB_GROUP, t->group, sizeof t->group);
        return 0;
}

static int take_local(TopSampler *s, TopSnapshot *snap) {
        _cleanup_free_ pid_t *all = NULL;
        ProcessName last = {};
        const pid_t *pids = s->only;
        size_t n_pids = s->n_only, cap = 0;
        int r;

        snap->mono_ns = clock_ns(CLOCK_MONOTONIC);
        if (n_pids == 0) {
                r = proc_list_pids(&all, &n_pids);
                if (r < 0)
                        return r;
                pids = all;
        }
        for (size_t i = 0; i < n_pids; i++) {
                _cleanup_free_ pid_t *tids = NULL;
                size_t n_tids;
                if (proc_list_tasks(pids[i], &tids, &n_tids) < 0)
                        continue; /* exited meanwhile */
                for (size_t j = 0; j < n_tids; j++) {
                        if (grow(snap, &cap) < 0)
                                return -ENOMEM;
                        if (read_local(pids[i], tids[j], &snap->threads[snap->n], &last) >= 0)
                                snap->n++;
                }
        }
        return 0;
}

static void describe_bus_error(const sd_bus *bus, const sd_bus_error *error, int r, char *buf, size_t size) {
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                snprintf(buf, size, "qosd not running");
        else if (!bus) /* no bus, so no qosd on it */
                snprintf(buf, size, "qosd not running (%s)", error->message);
        else
                snprintf(buf, size, "qosd not reachable (%s)",
                         error && error->message ? error->message : strerror(-r));
}

int top_sample_take(TopSampler *s, TopSnapshot *ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        TopSnapshot snap = {};
        long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
        int r;

        snap.n_cpus = n_cpus > 0 ? (unsigned) n_cpus : 1;
        snap.wall_sec = (int64_t) (clock_ns(CLOCK_REALTIME) / 1000000000ULL);
        r = take_from_daemon(s, &snap, &error);
        if (r < 0) {
                describe_bus_error(s->bus, &error, r, snap.source, sizeof snap.source);
                snap.n = 0;
                snap.daemon = false;
                r = take_local(s, &snap);
        }
        sd_bus_error_free(&error);
        if (r < 0) {
                top_snapshot_clear(&snap);
                return r;
        }
        top_snapshot_sort(&snap);
        *ret = snap;
        return 0;
}

void top_sampler_done(TopSampler *s) {
        s->bus = sd_bus_flush_close_unref(s->bus);
}
