/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mutex-holder.h"

typedef struct Command {
        HoldOp op;
        pthread_mutex_t *m;
        unsigned delay_ms;
} Command;

static void must(bool ok) {
        if (!ok)
                abort();
}

struct timespec deadline_ms(clockid_t clock, unsigned ms) {
        struct timespec t;
        clock_gettime(clock, &t);
        t.tv_sec += ms / 1000;
        t.tv_nsec += (long) (ms % 1000) * 1000000;
        if (t.tv_nsec >= 1000000000) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000;
        }
        return t;
}

void sleep_ms(unsigned ms) {
        struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000 };
        while (nanosleep(&t, &t) < 0)
                ;
}

static void *run(void *userdata) {
        Holder *h = userdata;
        Command c;
        int r = gettid();

        prctl(PR_SET_NAME, h->name);
        must(write(h->res[1], &r, sizeof r) == sizeof r);
        while (read(h->cmd[0], &c, sizeof c) == sizeof c) {
                if (c.op != HOLD_LOCK_FOR)
                        sleep_ms(c.delay_ms);
                switch (c.op) {
                case HOLD_LOCK_FOR:
                        r = pthread_mutex_lock(c.m);
                        sleep_ms(c.delay_ms);
                        if (r == 0)
                                pthread_mutex_unlock(c.m);
                        break;
                case HOLD_LOCK:
                        r = pthread_mutex_lock(c.m);
                        break;
                case HOLD_UNLOCK:
                        r = pthread_mutex_unlock(c.m);
                        break;
                case HOLD_TRYLOCK:
                        r = pthread_mutex_trylock(c.m);
                        break;
                case HOLD_EXIT:
                        r = 0;
                        must(write(h->res[1], &r, sizeof r) == sizeof r);
                        return NULL;
                }
                must(write(h->res[1], &r, sizeof r) == sizeof r);
        }
        return NULL;
}

void holder_start(Holder *h, const char *name) {
        memset(h, 0, sizeof *h);
        strncpy(h->name, name, sizeof h->name - 1);
        must(pipe(h->cmd) == 0 && pipe(h->res) == 0);
        must(pthread_create(&h->thread, NULL, run, h) == 0);
        h->tid = holder_result(h);
        h->running = true;
}

void holder_later(Holder *h, HoldOp op, pthread_mutex_t *m, unsigned delay_ms) {
        Command c = { .op = op, .m = m, .delay_ms = delay_ms };
        must(write(h->cmd[1], &c, sizeof c) == sizeof c);
        if (op == HOLD_EXIT)
                h->running = false;
}

int holder_result(Holder *h) {
        int r;
        must(read(h->res[0], &r, sizeof r) == sizeof r);
        return r;
}

int holder_do(Holder *h, HoldOp op, pthread_mutex_t *m) {
        holder_later(h, op, m, 0);
        return holder_result(h);
}

void holder_stop(Holder *h) {
        if (h->running)
                (void) holder_do(h, HOLD_EXIT, NULL);
        else
                (void) holder_result(h);
        pthread_join(h->thread, NULL);
        for (int i = 0; i < 2; i++) {
                close(h->cmd[i]);
                close(h->res[i]);
        }
}

struct sched_attr_v1 {
        uint32_t size, policy;
        uint64_t flags;
        int32_t nice;
        uint32_t priority;
        uint64_t runtime, deadline, period;
};

void thread_settings(char *buf, size_t n) {
        thread_settings_of(0, buf, n);
}

void thread_settings_of(pid_t tid, char *buf, size_t n) {
        struct sched_attr_v1 a = {};
        if (syscall(SYS_sched_getattr, tid, &a, sizeof a, 0) < 0)
                snprintf(buf, n, "error %d", errno);
        else
                snprintf(buf, n, "%u %d %llu", a.policy, a.nice, (unsigned long long) a.runtime);
}

bool thread_settings_wait_change(const char *from, char *now, size_t n, unsigned ms) {
        struct timespec until = deadline_ms(CLOCK_MONOTONIC, ms), t;
        for (;;) {
                thread_settings(now, n);
                if (strcmp(now, from) != 0)
                        return true;
                clock_gettime(CLOCK_MONOTONIC, &t);
                if (t.tv_sec > until.tv_sec || (t.tv_sec == until.tv_sec && t.tv_nsec > until.tv_nsec))
                        return false;
                sleep_ms(1);
        }
}
