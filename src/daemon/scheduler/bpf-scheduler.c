/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/backoff.h"
#include "core/cpu-kinds.h"
#include "core/kernel-caps.h"
#include "scheduler/bpf-scheduler.h"
#include "scheduler/loader-exec.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/sched-ext.h"

#define USEC_PER_SEC 1000000ULL
#define STOP_GRACE_USEC (2 * USEC_PER_SEC)     /* SIGTERM, then this long before SIGKILL */
#define MAX_EXITS 5                             /* unexpected exits within EXIT_WINDOW: give up */
#define EXIT_WINDOW_USEC (60 * USEC_PER_SEC)
#define LINE_MAX_LEN 1024

typedef struct BpfScheduler BpfScheduler;

/* One of the loader's output pipes, read line by line into qosd's log. It
 * may outlive its process by the lines still in the pipe. */
typedef struct Output {
        BpfScheduler *b;
        sd_event_source *src;
        pid_t pid;
        int level;
        size_t len;
        char buf[LINE_MAX_LEN];
} Output;

struct BpfScheduler {
        Manager *m;
        bool applied;           /* want and path were acted on */
        SchedulerKind want;
        char *path;
        pid_t pid;              /* the running loader, 0: none */
        bool stopping;          /* qosd sent it SIGTERM: its exit is expected */
        sd_event_source *child, *kill_timer, *restart_timer;
        Output out[2];          /* stdout, stderr */
        Backoff backoff;
        uint64_t exits[MAX_EXITS];      /* CLOCK_MONOTONIC of the last unexpected exits, a ring */
        unsigned n_exits;
};

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

static void output_line(Output *o, const char *line) {
        log_full_errno(o->level, 0, "scheduler[%d]: %s", (int) o->pid, line);
        if (o->pid == o->b->pid && strncmp(line, "scx_qos: loaded", 15) == 0)
                log_notice("Scheduler=qos: the qos scheduler is loaded (scx_qos, pid %d)", (int) o->pid);
}

static void output_close(Output *o) {
        if (o->len > 0) {
                o->buf[o->len] = '\0';
                output_line(o, o->buf);
        }
        o->len = 0;
        o->src = sd_event_source_disable_unref(o->src);
}

/* Read what is there: 1 if something was, 0 at end of file (or an
 * error), -EAGAIN if nothing is there now. */
static int output_read(Output *o) {
        int fd = sd_event_source_get_io_fd(o->src);
        ssize_t n = read(fd, o->buf + o->len, sizeof o->buf - 1 - o->len);
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? -EAGAIN : 0;
        if (n == 0)
                return 0;
        o->len += (size_t) n;
        char *start = o->buf, *nl;
        while ((nl = memchr(start, '\n', o->len - (size_t) (start - o->buf)))) {
                *nl = '\0';
                output_line(o, start);
                start = nl + 1;
        }
        o->len -= (size_t) (start - o->buf);
        memmove(o->buf, start, o->len);
        if (o->len == sizeof o->buf - 1) { /* a line this long is cut, not lost */
                o->buf[o->len] = '\0';
                output_line(o, o->buf);
                o->len = 0;
        }
        return 1;
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Output *o = userdata;
        if (output_read(o) == 0)
                output_close(o);
        return 0;
}

static int output_watch(BpfScheduler *b, Output *o, int fd, int level, pid_t pid) {
        output_close(o);
        *o = (Output) { .b = b, .pid = pid, .level = level };
        int r = sd_event_add_io(b->m->event, &o->src, fd, EPOLLIN, on_output, o);
        if (r < 0) {
                close(fd);
                return r;
        }
        return sd_event_source_set_io_fd_own(o->src, true);
}

static void describe_exit(const siginfo_t *si, char *buf, size_t size) {
        if (si->si_code == CLD_EXITED)
                snprintf(buf, size, "exited with status %d%s", si->si_status,
                         si->si_status == 1   ? " (the kernel ejected the scheduler)"
                         : si->si_status == 2 ? " (it could not load the scheduler)"
                         : si->si_status == 127 ? " (it could not be executed)"
                                                : "");
        else
                snprintf(buf, size, "was killed by signal %d (%s)", si->si_status, strsignal(si->si_status));
}

static int start(BpfScheduler *b);

static int on_restart(sd_event_source *s, uint64_t usec, void *userdata) {
        BpfScheduler *b = userdata;
        b->restart_timer = sd_event_source_disable_unref(b->restart_timer);
        if (b->want == SCHEDULER_QOS && b->pid == 0)
                (void) start(b);
        return 0;
}

/* After an unexpected exit, or a start that found sched_ext changing:
 * again after a wait that doubles, unless that happened too often. */
static void schedule_restart(BpfScheduler *b) {
        uint64_t now = now_usec();
        uint64_t oldest = b->exits[b->n_exits % MAX_EXITS];

        b->exits[b->n_exits++ % MAX_EXITS] = now;
        if (b->n_exits >= MAX_EXITS && now - oldest < EXIT_WINDOW_USEC) {
                log_error("Scheduler=qos: scx_qos stopped %d times within a minute; giving up "
                          "(a reload with Scheduler= or SchedulerPath= changed, or a restart of qosd, tries again)",
                          MAX_EXITS);
                return;
        }
        uint64_t wait = backoff_next(&b->backoff, now);
        log_info("Scheduler=qos: starting scx_qos again in %llu s", (unsigned long long) (wait / USEC_PER_SEC));
        b->restart_timer = sd_event_source_disable_unref(b->restart_timer);
        if (sd_event_add_time_relative(b->m->event, &b->restart_timer, CLOCK_MONOTONIC, wait, 0, on_restart, b) < 0)
                log_error("Scheduler=qos: cannot arm the restart timer; scx_qos stays stopped");
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata) {
        BpfScheduler *b = userdata;
        char how[128];
        pid_t pid = b->pid;

        describe_exit(si, how, sizeof how);
        b->child = sd_event_source_disable_unref(b->child); /* sd-event reaps it after this call */
        b->kill_timer = sd_event_source_disable_unref(b->kill_timer);
        b->pid = 0;
        if (b->stopping) {
                b->stopping = false;
                log_info("Scheduler: scx_qos (pid %d) stopped: %s", (int) pid, how);
                /* Stopped for a new SchedulerPath=, or Scheduler=qos came
                 * back while it was stopping. */
                if (b->want == SCHEDULER_QOS)
                        (void) start(b);
                return 0;
        }
        log_warning("Scheduler=qos: scx_qos (pid %d) %s", (int) pid, how);
        schedule_restart(b);
        return 0;
}

static int on_kill_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        BpfScheduler *b = userdata;
        log_warning("Scheduler: scx_qos (pid %d) still runs 2 s after SIGTERM; sending SIGKILL", (int) b->pid);
        if (b->child)
                (void) sd_event_source_send_child_signal(b->child, SIGKILL, NULL, 0);
        return 0;
}

/* Reload: SIGTERM now, SIGKILL later; on_child finishes. */
static void stop_async(BpfScheduler *b) {
        if (b->pid == 0 || b->stopping)
                return;
        b->stopping = true;
        (void) sd_event_source_send_child_signal(b->child, SIGTERM, NULL, 0);
        if (sd_event_add_time_relative(b->m->event, &b->kill_timer, CLOCK_MONOTONIC, STOP_GRACE_USEC, 0,
                                       on_kill_timer, b) < 0)
                (void) sd_event_source_send_child_signal(b->child, SIGKILL, NULL, 0);
}

/* What the kernel runs now decides whether to start: 1 if it may, else 0
 * (said why), or -EAGAIN while a scheduler loads or unloads. */
static int kernel_allows(BpfScheduler *b) {
        SchedExt x;
        sched_ext_read(b->m->sys_root, &x);
        switch (x.state) {
        case SCHED_EXT_ABSENT:
                log_warning("Scheduler=qos: this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT); "
                            "leaving the scheduler alone");
                return 0;
        case SCHED_EXT_DISABLED:
                return 1;
        case SCHED_EXT_ENABLED:
                if (strcmp(x.ops, "qos") == 0)
                        log_warning("Scheduler=qos: the qos scheduler is already loaded by another process; "
                                    "leaving it alone");
                else
                        log_warning("Scheduler=qos: another BPF scheduler (\"%s\") is loaded; leaving it alone",
                                    x.ops);
                return 0;
        case SCHED_EXT_CHANGING:
        default:
                log_info("Scheduler=qos: sched_ext is loading or unloading a scheduler (\"%s\")", x.ops);
                return -EAGAIN;
        }
}

static int start(BpfScheduler *b) {
        char why[128];
        LoaderChild c;
        int r;

        r = kernel_allows(b);
        if (r == -EAGAIN)
                schedule_restart(b);
        if (r <= 0)
                return r;
        _cleanup_close_ int fd = loader_open(b->path, why, sizeof why);
        if (fd < 0) {
                log_error("Scheduler=qos: SchedulerPath=%s: %s; not running it", b->path, why);
                return fd;
        }
        /* The scheduler places by the same kinds of CPU as qosd. */
        const KernelCaps *caps = kernel_caps();
        char cpus[CPU_MASK_LIST_MAX] = "none";
        if (caps->cpu_kinds_known && cpu_kinds_hybrid(&caps->cpu_kinds))
                cpu_mask_format(&caps->cpu_kinds.efficient, cpus, sizeof cpus);
        const char *const args[] = { "--efficient-cpus", cpus, NULL };
        r = loader_spawn(fd, b->path, caps->cpu_kinds_known ? args : NULL, &c);
        if (r < 0)
                return log_error_errno(r, "Scheduler=qos: cannot start %s: %m", b->path);
        b->pid = c.pid;
        r = sd_event_add_child(b->m->event, &b->child, c.pid, WEXITED, on_child, b);
        if (r < 0) {
                /* Unwatched, it could not be restarted nor stopped: end it. */
                log_error_errno(r, "Scheduler=qos: cannot watch scx_qos: %m; stopping it");
                kill(c.pid, SIGKILL);
                (void) waitpid(c.pid, NULL, 0);
                close(c.out_fd);
                close(c.err_fd);
                b->pid = 0;
                return r;
        }
        (void) output_watch(b, &b->out[0], c.out_fd, LOG_INFO, c.pid);
        (void) output_watch(b, &b->out[1], c.err_fd, LOG_WARNING, c.pid);
        log_info("Scheduler=qos: started %s (pid %d)", b->path, (int) c.pid);
        return 1;
}

int bpf_scheduler_apply(Manager *m) {
        const char *path = settings_scheduler_path(&m->settings);
        SchedulerKind want = m->settings.scheduler;
        BpfScheduler *b = m->scheduler;

        if (!b) {
                if (want == SCHEDULER_NONE)
                        return 0; /* nothing asked, nothing to keep */
                b = m->scheduler = calloc(1, sizeof *b);
                if (!b)
                        return log_error_errno(ENOMEM, "Scheduler=: out of memory");
                b->m = m;
        }
        if (b->applied && want == b->want && strcmp(path, b->path) == 0)
                return 0;
        char *p = strdup(path);
        if (!p)
                return log_error_errno(ENOMEM, "Scheduler=: out of memory");
        free(b->path);
        b->path = p;
        b->want = want;
        b->applied = true;
        /* A changed setting is a new start: the old exits do not count. */
        b->backoff = (Backoff) BACKOFF_INIT(USEC_PER_SEC, 8 * USEC_PER_SEC, EXIT_WINDOW_USEC);
        b->backoff.last_usec = now_usec(); /* the start below is the first attempt */
        b->n_exits = 0;
        memset(b->exits, 0, sizeof b->exits);
        b->restart_timer = sd_event_source_disable_unref(b->restart_timer);

        if (b->pid > 0) {
                log_info("Scheduler=%s%s: stopping scx_qos (pid %d)", want == SCHEDULER_QOS ? "qos" : "none",
                         want == SCHEDULER_QOS ? ", SchedulerPath= changed" : "", (int) b->pid);
                stop_async(b); /* on_child starts the new one if wanted */
                return 0;
        }
        return want == SCHEDULER_QOS ? start(b) : 0;
}

void bpf_scheduler_reload(Manager *m) {
        Settings s;

        if (!m->settings_path)
                return;
        settings_init(&s);
        if (settings_load(&s, m->settings_path) >= 0) {
                m->settings.scheduler = s.scheduler;
                free(m->settings.scheduler_path);
                m->settings.scheduler_path = TAKE_PTR(s.scheduler_path);
                (void) bpf_scheduler_apply(m);
        }
        settings_done(&s);
}

/* The event loop has ended: wait here, at most STOP_GRACE_USEC. */
static void stop_sync(BpfScheduler *b) {
        siginfo_t si = {};
        char how[128];

        if (!b->stopping)
                (void) sd_event_source_send_child_signal(b->child, SIGTERM, NULL, 0);
        log_info("Scheduler: stopping scx_qos (pid %d)", (int) b->pid);
        for (uint64_t waited = 0; waited < STOP_GRACE_USEC; waited += 10000) {
                si.si_pid = 0;
                if (waitid(P_PID, (id_t) b->pid, &si, WEXITED | WNOHANG) < 0 || si.si_pid != 0)
                        break;
                usleep(10000);
        }
        if (si.si_pid == 0) {
                log_warning("Scheduler: scx_qos (pid %d) still runs 2 s after SIGTERM; sending SIGKILL", (int) b->pid);
                (void) sd_event_source_send_child_signal(b->child, SIGKILL, NULL, 0);
                (void) waitid(P_PID, (id_t) b->pid, &si, WEXITED);
        }
        /* Its last words ("scx_qos: exit: ...") are in the pipes; stop at
         * an empty pipe that something else still holds open. */
        for (unsigned i = 0; i < ELEMENTSOF(b->out); i++) {
                int r = 1;
                while (b->out[i].src && (r = output_read(&b->out[i])) > 0)
                        ;
                if (r == 0)
                        output_close(&b->out[i]);
        }
        describe_exit(&si, how, sizeof how);
        log_info("Scheduler: scx_qos (pid %d) stopped: %s", (int) b->pid, how);
        b->pid = 0;
}

void bpf_scheduler_free(Manager *m) {
        BpfScheduler *b = m->scheduler;
        if (!b)
                return;
        if (b->pid > 0)
                stop_sync(b);
        b->child = sd_event_source_disable_unref(b->child);
        b->kill_timer = sd_event_source_disable_unref(b->kill_timer);
        b->restart_timer = sd_event_source_disable_unref(b->restart_timer);
        for (unsigned i = 0; i < ELEMENTSOF(b->out); i++)
                output_close(&b->out[i]);
        free(b->path);
        free(b);
        m->scheduler = NULL;
}
