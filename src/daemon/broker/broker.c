/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decide/access-policy.h"
#include "broker/broker.h"
#include "overrides/override-book.h"
#include "overrides/overrides.h"
#include "core/bus-protocol.h"
#include "caller/caller-identity.h"
#include "core/class-relpri.h"
#include "core/clock.h"
#include "focus/focus.h"
#include "focus/relayed.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "core/macro.h"
#include "decide/decide.h"
#include "core/proc.h"
#include "core/rate-limit.h"
#include "control/task-control.h"
#include "core/task-ref.h"
#include "core/utf8-escape.h"

/* The per-user bucket is this many per-process buckets: a user's programs
 * together may ask more than one program, but not without bound. */
#define USER_RATE_FACTOR 4

struct Broker {
        RateLimiter per_process, per_user;
        uint64_t granted, held, denied, rate_limited;
};

static uint64_t now_usec(void) {
        return clock_usec(CLOCK_MONOTONIC);
}

/* The app's MaxClass for this thread, as the rules say (policy.c), and
 * whether it is in the owner's own file (*user). */
static void app_cap(Manager *m, pid_t tgid, pid_t tid, QClass *ret, char *origin, size_t size, bool *user) {
        _cleanup_(process_record_freep) ProcessRecord *own = NULL;
        const ProcessRecord *p = process_table_get_current(&m->procs, tgid);
        char comm[PROC_COMM_MAX];
        Decision d;

        *ret = QCLASS_UNSPECIFIED;
        *user = false;
        if (!m->rules)
                return;
        if (!p) {
                if (process_record_read(tgid, 0, ruleset_uses_app_ids(m->rules), &own) < 0)
                        return;
                p = own;
        }
        if (proc_comm(tgid, tid, comm) < 0)
                return;
        ThreadFacts f = { .rules = m->rules, .process = p, .thread_name = comm, .caps = kernel_caps() };
        if (decide_rule(&f, &d) < 0)
                return;
        *ret = d.match.max_class;
        *user = d.match.limit_user;
        snprintf(origin, size, "%s:%u", d.match.limit_origin.path ?: "?", d.match.limit_origin.line);
}

/* The request as access_decide() sees it; the thread's own facts from /proc. */
static void fill_request(Manager *m, AccessRequest *a, pid_t tgid, pid_t tid, char *cap_origin, size_t size,
                         char *gate_reason, size_t gate_size) {
        a->outside = focus_holds_interactive(m, tgid);
        a->outside_reason = a->outside ? focus_hold_reason(m, tgid, gate_reason, gate_size) : NULL;
        a->playing_audio = a->outside && relayed_contains_pid(m, RELAYED_AUDIO, tgid);
        a->user_cap = m->settings.request_max_class;
        app_cap(m, tgid, tid, &a->app_cap, cap_origin, size, &a->app_cap_private);
        a->app_cap_origin = cap_origin;
}

static void format_origin(char *buf, size_t size, QClass requested, pid_t pid, uid_t uid, const AccessVerdict *v) {
        snprintf(buf, size, "requested %s by pid %d uid %u, %s", qclass_to_string(requested), (int) pid,
                 (unsigned) uid, v->reason);
}

static void remember(Manager *m, pid_t tid, QClass requested, int relpri, const Caller *c) {
        TaskEntry *e = registry_get(&m->tasks, tid);
        if (!e)
                return;
        e->wanted = requested;
        e->relpri = relpri;
        e->requester = c->pid;
        e->requester_uid = c->uid;
        e->requester_privileged = c->privileged;
}

/* A refusal as the bus face passes it on: its error name (NULL: from
 * the errno) and message. Returns r. */
_printf_(4, 5)
static int refuse(BrokerAnswer *ret, const char *name, int r, const char *fmt, ...) {
        va_list ap;
        ret->error_name = name;
        va_start(ap, fmt);
        vsnprintf(ret->message, sizeof ret->message, fmt, ap);
        va_end(ap);
        return r;
}

bool broker_admit(Manager *m, const Caller *caller) {
        Broker *b = m->broker;
        uint64_t now = now_usec();
        /* The process's bucket first: a process over its own limit does
         * not drain what its user's other programs may ask. */
        if (rate_limit_take(&b->per_process, ((uint64_t) caller->pid << 32) ^ caller->start_time ^ caller->uid, now) &&
            rate_limit_take(&b->per_user, (uint64_t) caller->uid + 1, now))
                return true;
        b->rate_limited++;
        log_debug("SetThreadClass from pid %d uid %u: rate limited", (int) caller->pid, (unsigned) caller->uid);
        return false;
}

/* The thread asked about, pinned, its settings (without loans: a thread
 * raised by a loan is judged by its own class), its process and owner. */
static int pin_target(Manager *m, const Caller *caller, const SetThreadClassArgs *args, TaskRef *ref,
                      TaskAttr *cur, AccessRequest *a) {
        int r = task_ref_open(args->tid, args->start_time, ref);
        if (r >= 0)
                r = task_ref_read_attr(ref, cur);
        if (r >= 0)
                r = proc_tgid(args->tid, &a->target_pid);
        if (r >= 0)
                r = proc_uid(a->target_pid, &a->target_uid);
        if (r >= 0)
                r = task_ref_alive(ref); /* what was read is that thread's */
        if (r >= 0)
                (void) override_base_view(m, ref, cur);
        /* A sandboxed caller's number was looked up among its own threads
         * (caller-tid.h): the thread must still be one of them. */
        if (r >= 0 && caller->nested && a->target_pid != caller->pid)
                r = -ESRCH;
        return r;
}

int broker_set_thread_class(Manager *m, const Caller *caller, const SetThreadClassArgs *args,
                            BrokerAnswer *ret) {
        Broker *b = m->broker;
        _cleanup_task_ref_ TaskRef ref = TASK_REF_NULL;
        TaskAttr cur;
        AccessRequest a = {};
        AccessVerdict v;
        char cap_origin[300], origin[512], gate_reason[128];
        int r;

        *ret = (BrokerAnswer) {};
        r = pin_target(m, caller, args, &ref, &cur, &a);
        if (r < 0)
                return refuse(ret, QOS_BUS_ERROR_NO_SUCH_TASK, -ESRCH, "No thread %d with start time %" PRIu64 ".",
                              (int) args->tid, args->start_time);
        if (task_attr_is_realtime(&cur))
                return refuse(ret, QOS_BUS_ERROR_REALTIME, -EBUSY, "Thread %d is real-time; qosd does not touch it.",
                              (int) args->tid);

        a.caller_uid = caller->uid;
        a.caller_privileged = caller->privileged;
        a.caller_pid = caller->pid;
        a.requested = args->class;
        a.requested_relpri = args->relpri;
        a.current = class_from_attr_relpri(&cur, kernel_caps(), &a.current_relpri);
        fill_request(m, &a, a.target_pid, args->tid, cap_origin, sizeof cap_origin, gate_reason, sizeof gate_reason);
        access_decide(&a, &v);
        log_debug("SetThreadClass(%d, %s, %d) from pid %d uid %u: %s", (int) args->tid,
                  qclass_to_string(args->class), args->relpri, (int) caller->pid, (unsigned) caller->uid, v.reason);
        /* For the bus: the reason may name a rule file (utf8-escape.h says why). */
        ret->reason = utf8_escape(v.reason);
        if (!ret->reason)
                return -ENOMEM;
        if (v.result == ACCESS_DENIED) {
                b->denied++;
                return refuse(ret, SD_BUS_ERROR_ACCESS_DENIED, -EACCES, "Not allowed: %s.", ret->reason);
        }

        format_origin(origin, sizeof origin, args->class, caller->pid, caller->uid, &v);
        r = control_request_pinned(m, &ref, &cur, a.target_pid, v.granted, args->relpri, origin,
                                   v.reason_private, true);
        if (r == -ESRCH)
                return refuse(ret, QOS_BUS_ERROR_NO_SUCH_TASK, r, "Thread %d exited.", (int) args->tid);
        if (r == -EBUSY)
                return refuse(ret, QOS_BUS_ERROR_REALTIME, r, "Thread %d is real-time.", (int) args->tid);
        if (r < 0)
                return refuse(ret, NULL, r, "Cannot apply %s: %s", qclass_to_string(v.granted), strerror(-r));
        remember(m, args->tid, args->class, args->relpri, caller);

        /* As rtkit does: the process judged must still be the one that
         * asked, or the verdict was about someone else. */
        if (caller_recheck(caller) < 0) {
                TaskEntry *e = registry_get(&m->tasks, args->tid);
                if (e)
                        control_restore(m, e, "the requesting process went away");
                b->denied++;
                return refuse(ret, SD_BUS_ERROR_ACCESS_DENIED, -EACCES,
                              "The caller exited while its request was handled.");
        }
        if (v.result == ACCESS_HELD)
                b->held++;
        else
                b->granted++;
        ret->granted = v.granted;
        overrides_recap(m, "a request was answered");
        return 0;
}

/* Decide a remembered request again and move the thread if the verdict
 * changed. */
static void reevaluate_one(Manager *m, pid_t tid, const char *why) {
        TaskEntry *e = registry_get(&m->tasks, tid);
        AccessRequest a;
        AccessVerdict v;
        char cap_origin[300], origin[512], gate_reason[128];
        if (!e || e->state != TASK_REQUESTED)
                return;
        /* The caller's standing was settled when it asked (same user, own
         * process or downwards); what moves is the gate and the caps. */
        a = (AccessRequest) {
                .caller_uid = e->requester_uid,
                .caller_privileged = e->requester_privileged,
                .caller_pid = e->requester,
                .target_uid = e->requester_uid, /* checked equal when it asked */
                .target_pid = e->tgid,
                .requested = e->wanted,
                .requested_relpri = e->relpri,
                .current = e->wanted,
                .current_relpri = e->relpri,
        };
        fill_request(m, &a, e->tgid, e->tid, cap_origin, sizeof cap_origin, gate_reason, sizeof gate_reason);
        access_decide(&a, &v);
        if (v.result == ACCESS_DENIED)
                return;
        QClass wanted = e->wanted;
        int relpri = e->relpri;
        Caller c = { .pid = e->requester, .uid = e->requester_uid, .privileged = e->requester_privileged };
        format_origin(origin, sizeof origin, wanted, c.pid, c.uid, &v);
        if (v.granted == e->class) {
                /* Same class, maybe for another reason now. */
                (void) registry_set_origin(e, e->app, origin, v.reason_private);
                return;
        }
        int r = control_request(m, e->tid, e->start_time, e->tgid, v.granted, relpri, origin, v.reason_private,
                                false);
        if (r > 0) {
                remember(m, tid, wanted, relpri, &c);
                log_debug("thread %d: %s (%s)", (int) tid, origin, why);
        }
}

static void reevaluate_requests(Manager *m, const char *why) {
        _cleanup_free_ TaskEntry **list = NULL;
        size_t n;

        if (!m->broker || registry_list(&m->tasks, &list, &n) < 0)
                return;
        /* Copy what is needed: applying may remove entries. */
        _cleanup_free_ pid_t *tids = calloc(n + 1, sizeof *tids);
        if (!tids)
                return;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (list[i]->state == TASK_REQUESTED)
                        tids[k++] = list[i]->tid;
        for (size_t i = 0; i < k; i++)
                reevaluate_one(m, tids[i], why);
}

void broker_reevaluate_thread(Manager *m, pid_t tid, const char *why) {
        if (m->broker)
                reevaluate_one(m, tid, why);
}

void broker_reevaluate(Manager *m, const char *why) {
        reevaluate_requests(m, why);
        /* What the threads have now caps what they lend. */
        overrides_recap(m, why);
}

uint64_t broker_count(const Manager *m, BrokerCount which) {
        const Broker *b = m->broker;
        if (!b)
                return 0;
        switch (which) {
        case BROKER_GRANTED:
                return b->granted;
        case BROKER_HELD:
                return b->held;
        case BROKER_DENIED:
                return b->denied;
        case BROKER_RATE_LIMITED:
                return b->rate_limited;
        }
        return 0;
}

int broker_start(Manager *m) {
        Broker *b = m->broker;
        if (b)
                return 0; /* a new connection after the bus came back: counters and limits go on */
        b = calloc(1, sizeof *b);
        if (!b)
                return -ENOMEM;
        m->broker = b;
        rate_limit_init(&b->per_process, m->settings.request_rate, m->settings.request_burst);
        rate_limit_init(&b->per_user, (double) m->settings.request_rate * USER_RATE_FACTOR,
                        (double) m->settings.request_burst * USER_RATE_FACTOR);
        return 0;
}

void broker_free(Manager *m) {
        free(m->broker);
        m->broker = NULL;
}
