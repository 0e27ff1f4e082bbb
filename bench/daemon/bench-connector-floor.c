/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The floor under qosd's figures: the least any proc-connector daemon can
 * cost on this machine. Same event source and sd-event loop as qosd, same
 * user-interactive class for itself, and no more work than one read of
 * /proc/PID/comm and one sched_setscheduler(SCHED_IDLE) for an EXEC whose
 * name is NAME; every other event is only counted.
 *
 *   bench-connector-floor NAME [REST_USEC]
 *                                  runs until SIGTERM, prints
 *                                  "events N cpu_ns N" on stdout, writes
 *                                  "ready" to stderr once subscribed
 *
 * qosd's cost above this floor is what qosd itself does per event (its
 * registry, matching, read-back); the floor is the kernel's and the VM's
 * (netlink delivery, a wake-up per event when the producer is slower).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/event-source.h"
#include "core/task-apply.h"

typedef struct Floor {
        const char *name;
        uint64_t events;
} Floor;

static void set_idle(pid_t pid, const char *name) {
        char path[64], comm[32];
        snprintf(path, sizeof path, "/proc/%d/comm", (int) pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        ssize_t n = read(fd, comm, sizeof comm - 1);
        close(fd);
        if (n <= 0)
                return;
        comm[n] = '\0';
        comm[strcspn(comm, "\n")] = '\0';
        if (strcmp(comm, name) == 0)
                (void) sched_setscheduler(pid, SCHED_IDLE, &(struct sched_param) { 0 });
}

static void on_event(const ProcEvent *ev, void *userdata) {
        Floor *f = userdata;
        f->events++;
        if (ev->type == PROC_EV_EXEC)
                set_idle(ev->tgid, f->name);
}

static void on_lost(const char *why, void *userdata) {
        (void) why;
        (void) userdata;
}

static uint64_t cpu_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

int main(int argc, char **argv) {
        static const EventSourceOps ops = { .event = on_event, .lost = on_lost };
        Floor f = { .name = argc >= 2 && argc <= 3 ? argv[1] : NULL };
        uint64_t rest_usec = argc == 3 ? strtoull(argv[2], NULL, 10) : 250; /* qosd's default */
        sd_event *e = NULL;
        EventSource *src = NULL;
        ApplyResult self;
        sigset_t ss;

        if (!f.name) {
                fprintf(stderr, "usage: bench-connector-floor NAME [REST_USEC]\n");
                return 2;
        }
        (void) task_apply_class(gettid(), QCLASS_USER_INTERACTIVE, &self);
        sigemptyset(&ss);
        sigaddset(&ss, SIGTERM);
        sigaddset(&ss, SIGINT);
        sigprocmask(SIG_BLOCK, &ss, NULL);
        int r = sd_event_default(&e);
        if (r >= 0)
                r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(e, NULL, SIGINT, NULL, NULL);
        if (r >= 0)
                r = event_source_new(e, 16 << 20, rest_usec, &ops, &f, &src);
        if (r < 0) {
                fprintf(stderr, "bench-connector-floor: %s\n", strerror(-r));
                return 1;
        }
        fprintf(stderr, "ready\n");
        uint64_t c0 = cpu_ns();
        r = sd_event_loop(e);
        printf("events %" PRIu64 " cpu_ns %" PRIu64 "\n", f.events, cpu_ns() - c0);
        event_source_free(src);
        sd_event_unref(e);
        return r < 0;
}
