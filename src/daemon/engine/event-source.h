/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The netlink proc connector: process and thread events from the kernel.
 * Events are hints ("something happened to TID"); callers read the task
 * itself before acting, because by then the TID may belong to someone else. */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef enum ProcEventType {
        PROC_EV_FORK,           /* a process or a thread was created */
        PROC_EV_EXEC,
        PROC_EV_COMM,           /* a thread was renamed */
        PROC_EV_EXIT,           /* a thread (or the last thread of a process) ended */
} ProcEventType;

typedef struct ProcEvent {
        ProcEventType type;
        pid_t tid, tgid;                /* the task the event is about (the child for FORK) */
        pid_t parent_tid, parent_tgid;  /* FORK only: the parent process (for a new thread: its
                                         * process's parent, not the creating thread) */
} ProcEvent;

typedef struct EventSourceOps {
        void (*event)(const ProcEvent *ev, void *userdata);
        /* Events were lost (ENOBUFS, or a hole in a CPU's sequence numbers):
         * the caller must rescan /proc to converge. */
        void (*lost)(const char *why, void *userdata);
} EventSourceOps;

typedef struct EventSourceStats {
        uint64_t events;        /* FORK/EXEC/COMM/EXIT messages delivered */
        uint64_t enobufs;       /* receive queue overflows */
        uint64_t seq_gaps;      /* holes in per-CPU sequence numbers */
        uint64_t rests;         /* wake-ups after which the socket rested (a storm) */
        uint64_t reopens;       /* sockets opened anew after a read error */
} EventSourceStats;

typedef struct EventSource EventSource;

/* Open, size the receive buffer (bytes; root may exceed rmem_max), subscribe
 * and hook into the event loop. Above 10,000 events/s the socket rests
 * rest_usec after each wake-up (0: never), to take several per wake-up.
 * A read error other than a loss closes the socket and opens a new one
 * (rate-bounded), then reports a loss through ops->lost so that the
 * caller rescans. */
int event_source_new(sd_event *e, int rcvbuf, uint64_t rest_usec, const EventSourceOps *ops,
                     void *userdata, EventSource **ret);
EventSource *event_source_free(EventSource *s);
const EventSourceStats *event_source_stats(const EventSource *s);
/* The receive buffer the kernel actually granted (it doubles what is asked). */
int event_source_rcvbuf(const EventSource *s);
/* Bytes of events in the receive queue, not yet read: 0 when qosd has
 * taken everything the kernel sent so far. */
int event_source_queued(const EventSource *s, uint64_t *ret);
