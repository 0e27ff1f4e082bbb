/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/backoff.h"
#include "engine/event-source.h"
#include "core/log.h"
#include "core/macro.h"

/* The kernel stamps each message with a per-CPU sequence number; a hole
 * means a message this socket never got. Sized generously; CPUs beyond it
 * are simply not checked (ENOBUFS still is). */
#define MAX_CPUS 1024
/* Messages taken per wake-up before returning to the loop, so that D-Bus
 * calls and signals are served during a fork storm. */
#define BATCH 128

/* One message as the kernel sends it: netlink header, connector header,
 * one proc event; VLEN of them per recvmmsg(). */
#define MSG_SIZE NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(struct proc_event))
#define VLEN 64
/* Interrupt coalescing, as network drivers do it: in a fork storm each
 * wake-up finds one or two events, and the wake-up costs more than the
 * events (on this VM ~20 µs, bench/daemon/run-daemon-bench.sh). Above
 * STORM_EVENTS events in one STORM_WINDOW the socket rests for the
 * caller's rest_usec (qosd.conf EventRestUSec=) after each wake-up, so
 * that one recvmmsg() takes several events; below it every event is
 * handled at once. */
#define STORM_WINDOW_USEC (10 * 1000)
#define STORM_EVENTS 100
/* And a ceiling: a program can make events far faster than anyone needs
 * them handled (a thread renaming itself in a loop: over 600,000 a
 * second). Past WINDOW_EVENTS_MAX in a window the socket rests until the
 * window ends, so reading events costs qosd a few percent of a CPU at
 * most; what the kernel cannot queue meanwhile is dropped and counted,
 * and the rescan that follows (itself within its budget, event-handler.c)
 * converges. 12,800 events a second is more than a parallel build makes. */
#define WINDOW_EVENTS_MAX BATCH
/* At the ceiling the kernel's queue fills with seconds of a storm's events,
 * and whatever happens meanwhile waits behind them, or is dropped unseen
 * until the reading reaches the hole. Past SHED_BYTES queued (about a
 * thousand events) the queue is thrown away instead: a new socket, the
 * old one closed, counted as lost, and the rescan converges; at most once
 * every SHED_EVERY_USEC, a socket costs a few system calls. */
#define SHED_BYTES (1024 * 1024)
#define SHED_EVERY_USEC (100 * 1000)
/* A read error that is not a lost event (EAGAIN, EINTR, ENOBUFS) leaves a
 * socket qosd cannot trust: it is closed and a new one opened, at once
 * the first time; if the new one fails again within REOPEN_CALM_USEC, the
 * wait doubles from REOPEN_MIN_USEC up to REOPEN_MAX_USEC, so a connector
 * that keeps failing costs a few attempts a minute, not a busy loop. */
#define REOPEN_MIN_USEC (100 * 1000)
#define REOPEN_MAX_USEC (10 * 1000 * 1000)
#define REOPEN_CALM_USEC (30 * 1000 * 1000)

typedef struct CpuSeq {
        uint32_t next;
        bool seen;
} CpuSeq;

struct EventSource {
        int fd;                 /* -1 between a failure and the reopen */
        sd_event *event;
        sd_event_source *io;
        sd_event_source *rest;  /* the coalescing timer */
        sd_event_source *reopen;        /* armed after a failure */
        Backoff backoff;
        uint64_t window_start;  /* CLOCK_MONOTONIC µs */
        uint64_t window_events;
        uint64_t last_shed;     /* CLOCK_MONOTONIC µs of the last shed() */
        EventSourceOps ops;
        void *userdata;
        EventSourceStats stats;
        int rcvbuf;             /* granted */
        int rcvbuf_asked;
        uint64_t rest_usec;
        CpuSeq *seq;
        char bufs[VLEN][MSG_SIZE + 64] __attribute__((aligned(NLMSG_ALIGNTO)));
};

static int subscribe(int fd, enum proc_cn_mcast_op op) {
        /* netlink header, connector header, then the operation: laid out by
         * hand because struct cn_msg ends in a flexible array, which may not
         * sit inside another struct in ISO C. */
        char buf[NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))] = {};
        struct nlmsghdr *nl = (struct nlmsghdr *) buf;
        struct cn_msg *cn = NLMSG_DATA(nl);

        nl->nlmsg_len = sizeof buf;
        nl->nlmsg_type = NLMSG_DONE;
        nl->nlmsg_pid = 0;
        cn->id.idx = CN_IDX_PROC;
        cn->id.val = CN_VAL_PROC;
        cn->len = sizeof(enum proc_cn_mcast_op);
        memcpy(cn->data, &op, sizeof op);
        /* The 4-byte form every kernel understands (6.6+ also takes a filter
         * struct; the events we would filter out are rare). */
        if (send(fd, buf, sizeof buf, 0) < 0)
                return negative_errno();
        return 0;
}

/* A hole in one CPU's sequence means this socket missed a message that
 * ENOBUFS did not report. After ENOBUFS the holes are expected, so the
 * tracking starts over instead of reporting the same loss twice. */
static void check_seq(EventSource *s, const struct cn_msg *cn, const struct proc_event *ev) {
        if (ev->cpu >= MAX_CPUS)
                return;
        CpuSeq *c = &s->seq[ev->cpu];
        bool gap = c->seen && cn->seq != c->next;
        c->seen = true;
        c->next = cn->seq + 1;
        if (gap) {
                s->stats.seq_gaps++;
                s->ops.lost("sequence gap", s->userdata);
        }
}

static void reset_seq(EventSource *s) {
        memset(s->seq, 0, MAX_CPUS * sizeof *s->seq);
}

static void handle(EventSource *s, const struct cn_msg *cn) {
        /* The event sits 36 bytes into the datagram, not 8-byte aligned:
         * copy it out rather than read it in place. */
        struct proc_event copy = {}, *ev = &copy;
        ProcEvent pe = {};

        if (cn->len < offsetof(struct proc_event, event_data))
                return;
        memcpy(&copy, cn->data, cn->len < sizeof copy ? cn->len : sizeof copy);
        check_seq(s, cn, ev);
        switch (ev->what) {
        case PROC_EVENT_FORK:
                pe = (ProcEvent) {
                        .type = PROC_EV_FORK,
                        .tid = ev->event_data.fork.child_pid,
                        .tgid = ev->event_data.fork.child_tgid,
                        .parent_tid = ev->event_data.fork.parent_pid,
                        .parent_tgid = ev->event_data.fork.parent_tgid,
                };
                break;
        case PROC_EVENT_EXEC:
                pe = (ProcEvent) {
                        .type = PROC_EV_EXEC,
                        .tid = ev->event_data.exec.process_pid,
                        .tgid = ev->event_data.exec.process_tgid,
                };
                break;
        case PROC_EVENT_COMM:
                pe = (ProcEvent) {
                        .type = PROC_EV_COMM,
                        .tid = ev->event_data.comm.process_pid,
                        .tgid = ev->event_data.comm.process_tgid,
                };
                break;
        case PROC_EVENT_EXIT:
                pe = (ProcEvent) {
                        .type = PROC_EV_EXIT,
                        .tid = ev->event_data.exit.process_pid,
                        .tgid = ev->event_data.exit.process_tgid,
                };
                break;
        default:
                return; /* uid/gid/sid/ptrace/coredump: periodic scans cover them */
        }
        s->stats.events++;
        s->ops.event(&pe, s->userdata);
}

static void handle_datagram(EventSource *s, const char *buf, size_t n, const struct sockaddr_nl *from) {
        /* Only the kernel may speak here. */
        if (from->nl_pid != 0)
                return;
        for (const struct nlmsghdr *nl = (const struct nlmsghdr *) buf; NLMSG_OK(nl, n); nl = NLMSG_NEXT(nl, n)) {
                if (nl->nlmsg_type == NLMSG_ERROR || nl->nlmsg_type == NLMSG_NOOP)
                        continue;
                if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg)))
                        continue;
                const struct cn_msg *cn = NLMSG_DATA(nl);
                if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
                        continue;
                if (NLMSG_LENGTH(sizeof(struct cn_msg) + cn->len) > nl->nlmsg_len)
                        continue;
                handle(s, cn);
        }
}

#ifdef QOS_FAULT_INJECTION
/* Test builds only (the qosd-fault-inject binary, never installed): when
 * the file named by $QOSD_FAULT_RECV exists and holds "ERRNO [COUNT]",
 * the next COUNT reads (default 1) fail with ERRNO, then the file goes.
 * The kernel cannot be made to fail a netlink read on demand; this is the
 * one place that reads the socket. */
static int injected_error(void) {
        const char *path = getenv("QOSD_FAULT_RECV");
        _cleanup_fclose_ FILE *f = path ? fopen(path, "re") : NULL;
        int e = 0, count = 1;
        if (!f || fscanf(f, "%d %d", &e, &count) < 1 || e <= 0)
                return 0;
        fclose(TAKE_PTR(f));
        if (count > 1) {
                _cleanup_fclose_ FILE *w = fopen(path, "we");
                if (w)
                        fprintf(w, "%d %d\n", e, count - 1);
        } else
                unlink(path);
        return e;
}
#endif

static int recv_messages(int fd, struct mmsghdr *msgs, unsigned n) {
#ifdef QOS_FAULT_INJECTION
        int e = injected_error();
        if (e > 0) {
                errno = e;
                return -1;
        }
#endif
        return recvmmsg(fd, msgs, n, MSG_DONTWAIT, NULL);
}

/* Take what is queued, up to BATCH messages; the number taken, or a
 * negative errno. */
static int drain(EventSource *s, int fd) {
        /* recvmmsg: a storm delivers dozens of datagrams per wake-up, one
         * system call takes them all. */
        char (*bufs)[MSG_SIZE + 64] = s->bufs;
        struct sockaddr_nl from[VLEN];
        struct iovec iov[VLEN];
        struct mmsghdr msgs[VLEN];

        int taken = 0;
        for (int round = 0; round < BATCH / VLEN; round++) {
                for (int i = 0; i < VLEN; i++) {
                        iov[i] = (struct iovec) { bufs[i], sizeof bufs[i] };
                        msgs[i] = (struct mmsghdr) { .msg_hdr = {
                                .msg_name = &from[i], .msg_namelen = sizeof from[i],
                                .msg_iov = &iov[i], .msg_iovlen = 1 } };
                }
                int n = recv_messages(fd, msgs, VLEN);
                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                return taken;
                        if (errno == ENOBUFS) {
                                s->stats.enobufs++;
                                reset_seq(s);
                                s->ops.lost("receive queue overflow (ENOBUFS)", s->userdata);
                                continue;
                        }
                        return negative_errno();
                }
                for (int i = 0; i < n; i++)
                        handle_datagram(s, bufs[i], msgs[i].msg_len, &from[i]);
                taken += n;
                if (n < VLEN)
                        return taken;
        }
        return taken;
}

static int on_rested(sd_event_source *es, uint64_t usec, void *userdata) {
        EventSource *s = userdata;
        return s->io ? sd_event_source_set_enabled(s->io, SD_EVENT_ON) : 0;
}

static int open_socket(EventSource *s);

/* Drop what the kernel has queued: the new socket first, so that no event
 * falls between the two. */
static void shed(EventSource *s) {
        int old_fd = s->fd;
        sd_event_source *old_io = s->io;

        s->fd = -1;
        s->io = NULL;
        if (open_socket(s) < 0) {
                s->fd = old_fd;
                s->io = old_io;
                return;
        }
        sd_event_source_disable_unref(old_io);
        subscribe(old_fd, PROC_CN_MCAST_IGNORE);
        close(old_fd);
        s->stats.enobufs++;
        s->ops.lost("an event storm: the queued events were dropped", s->userdata);
}

/* Count the events of this window; in a storm, rest the socket. */
static void maybe_rest(EventSource *s, int taken) {
        uint64_t now;
        if (sd_event_now(sd_event_source_get_event(s->io), CLOCK_MONOTONIC, &now) < 0)
                return;
        if (now - s->window_start > STORM_WINDOW_USEC) {
                s->window_start = now;
                s->window_events = 0;
        }
        s->window_events += (uint64_t) taken;
        uint64_t until = now + s->rest_usec;
        if (s->window_events >= WINDOW_EVENTS_MAX) {
                uint64_t queued;
                if (now - s->last_shed >= SHED_EVERY_USEC && event_source_queued(s, &queued) >= 0 &&
                    queued > SHED_BYTES) {
                        s->last_shed = now;
                        shed(s);
                }
                until = s->window_start + STORM_WINDOW_USEC;
        } else if (s->rest_usec == 0 || s->window_events <= STORM_EVENTS)
                return;
        if (sd_event_source_set_time(s->rest, until) < 0 ||
            sd_event_source_set_enabled(s->rest, SD_EVENT_ONESHOT) < 0)
                return;
        s->stats.rests++;
        (void) sd_event_source_set_enabled(s->io, SD_EVENT_OFF);
}

static int on_readable(sd_event_source *es, int fd, uint32_t revents, void *userdata);

/* A connector socket, subscribed, watched by the loop. */
static int open_socket(EventSource *s) {
        int rcvbuf = s->rcvbuf_asked;
        _cleanup_close_ int fd = -1;
        struct sockaddr_nl addr = {
                .nl_family = AF_NETLINK,
                .nl_groups = CN_IDX_PROC,
                .nl_pid = 0, /* let the kernel pick: several qosd test instances may run */
        };
        socklen_t len = sizeof(int);
        int r;

        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
        if (fd < 0)
                return log_error_errno(errno, "proc connector: socket failed: %m");
        if (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) < 0)
                log_warning_errno(errno, "proc connector: cannot set receive buffer: %m");
        if (bind(fd, (struct sockaddr *) &addr, sizeof addr) < 0)
                return log_error_errno(errno, "proc connector: bind failed (needs root in the initial namespaces): %m");
        r = subscribe(fd, PROC_CN_MCAST_LISTEN);
        if (r < 0)
                return log_error_errno(r, "proc connector: subscribe failed: %m");
        getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &s->rcvbuf, &len);
        r = sd_event_add_io(s->event, &s->io, fd, EPOLLIN, on_readable, s);
        if (r < 0)
                return log_error_errno(r, "proc connector: cannot watch socket: %m");
        s->fd = TAKE_FD(fd);
        reset_seq(s);
        return 0;
}

static void close_socket(EventSource *s) {
        s->io = sd_event_source_disable_unref(s->io);
        (void) sd_event_source_set_enabled(s->rest, SD_EVENT_OFF);
        if (s->fd >= 0) {
                subscribe(s->fd, PROC_CN_MCAST_IGNORE);
                close(s->fd);
        }
        s->fd = -1;
}

static uint64_t now_usec(EventSource *s) {
        uint64_t now = 0;
        (void) sd_event_now(s->event, CLOCK_MONOTONIC, &now);
        return now;
}

static void schedule_reopen(EventSource *s) {
        uint64_t now = now_usec(s), wait = backoff_next(&s->backoff, now);
        if (sd_event_source_set_time(s->reopen, now + wait) < 0 ||
            sd_event_source_set_enabled(s->reopen, SD_EVENT_ONESHOT) < 0)
                log_error("proc connector: cannot arm the reopen timer; only scans find new tasks now");
}

static int on_reopen(sd_event_source *es, uint64_t usec, void *userdata) {
        EventSource *s = userdata;
        if (open_socket(s) < 0) {
                close_socket(s);
                schedule_reopen(s);
                return 0;
        }
        s->stats.reopens++;
        log_notice("proc connector: reopened (%" PRIu64 " time(s) so far); rescanning for what it missed",
                   s->stats.reopens);
        s->ops.lost("the proc connector was reopened", s->userdata);
        return 0;
}

static int on_readable(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        EventSource *s = userdata;
        int taken = drain(s, fd);
        if (taken < 0) {
                /* Returning the error would make sd-event disable the source
                 * for good, and qosd would see no event again. */
                log_warning_errno(taken, "proc connector: read failed: %m; closing the socket and opening a new one");
                close_socket(s);
                schedule_reopen(s);
                return 0;
        }
        maybe_rest(s, taken);
        return 0;
}

int event_source_new(sd_event *e, int rcvbuf, uint64_t rest_usec, const EventSourceOps *ops,
                     void *userdata, EventSource **ret) {
        int r;

        _cleanup_free_ EventSource *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->fd = -1;
        s->seq = calloc(MAX_CPUS, sizeof *s->seq);
        if (!s->seq)
                return -ENOMEM;
        s->event = e;
        s->ops = *ops;
        s->userdata = userdata;
        s->rest_usec = rest_usec;
        s->rcvbuf_asked = rcvbuf;
        s->backoff = (Backoff) BACKOFF_INIT(REOPEN_MIN_USEC, REOPEN_MAX_USEC, REOPEN_CALM_USEC);
        /* Accuracy 1 µs: sd-event's default (250 ms) would turn a rest
         * of a few hundred µs into anything up to a quarter second. */
        r = sd_event_add_time(e, &s->rest, CLOCK_MONOTONIC, 0, 1, on_rested, s);
        if (r >= 0)
                r = sd_event_source_set_enabled(s->rest, SD_EVENT_OFF);
        if (r >= 0)
                r = sd_event_add_time(e, &s->reopen, CLOCK_MONOTONIC, 0, 0, on_reopen, s);
        if (r >= 0)
                r = sd_event_source_set_enabled(s->reopen, SD_EVENT_OFF);
        if (r < 0)
                log_error_errno(r, "proc connector: cannot set up timers: %m");
        if (r >= 0)
                r = open_socket(s);
        if (r < 0) {
                close_socket(s);
                sd_event_source_disable_unref(s->rest);
                sd_event_source_disable_unref(s->reopen);
                free(s->seq);
                return r;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

EventSource *event_source_free(EventSource *s) {
        if (!s)
                return NULL;
        close_socket(s);
        sd_event_source_disable_unref(s->rest);
        sd_event_source_disable_unref(s->reopen);
        free(s->seq);
        free(s);
        return NULL;
}

const EventSourceStats *event_source_stats(const EventSource *s) {
        return &s->stats;
}

int event_source_rcvbuf(const EventSource *s) {
        return s->rcvbuf;
}

int event_source_queued(const EventSource *s, uint64_t *ret) {
        /* Netlink sockets have no SIOCINQ; the socket's memory counters
         * work for every family. */
        uint32_t mem[SK_MEMINFO_VARS] = {};
        socklen_t len = sizeof mem;
        if (getsockopt(s->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0)
                return negative_errno();
        *ret = mem[SK_MEMINFO_RMEM_ALLOC];
        return 0;
}
