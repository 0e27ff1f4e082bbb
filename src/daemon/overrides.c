/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "bus-protocol.h"
#include "class-table.h"
#include "kernel-caps.h"
#include "log.h"
#include "macro.h"
#include "override-stack.h"
#include "overrides.h"
#include "proc.h"
#include "task-ref.h"

/* A caller can hold at most this many overrides: a process that leaks
 * them (never ends them) cannot grow qosd without bound. */
#define OVERRIDES_PER_CLIENT 1024

typedef struct Client Client;
typedef struct Owner Owner;

/* One override: which caller holds it, on which thread. */
typedef struct Record {
        struct Record *next;
        uint64_t id;
        Client *client;
        Owner *owner;
        QClass c;
} Record;

/* A thread that has overrides: pinned, with what it had before the first. */
struct Owner {
        Owner *next;
        TaskRef ref;
        TaskAttr base;
        QClass base_class;
        OverrideStack stack;
        sd_event_source *exit_watch;    /* the pidfd turns readable when it exits */
        Manager *manager;
};

/* A bus connection that holds overrides; tracked so that they end with it. */
struct Client {
        Client *next;
        char *sender;
        sd_bus_track *track;
        size_t n;
        Manager *manager;
};

struct Overrides {
        Record *records;
        Owner *owners;
        Client *clients;
        uint64_t next_id;
};

static Overrides *get(Manager *m) {
        if (!m->overrides)
                m->overrides = calloc(1, sizeof(Overrides));
        return m->overrides;
}

static int owner_apply(Owner *o) {
        QClass c = override_stack_effective(&o->stack, o->base_class);
        TaskAttr want = o->base;
        ApplyResult res;
        if (c != QCLASS_UNSPECIFIED)
                class_target_attr(c, kernel_caps(), &want);
        int r = task_ref_apply(&o->ref, &want, KNOBS_ALL, &res);
        return r < 0 ? r : apply_result_error(&res);
}

static void owner_free(Overrides *ov, Owner *o) {
        for (Owner **p = &ov->owners; *p; p = &(*p)->next)
                if (*p == o) {
                        *p = o->next;
                        break;
                }
        sd_event_source_disable_unref(o->exit_watch);
        task_ref_close(&o->ref);
        free(o);
}

static void client_free(Overrides *ov, Client *c) {
        for (Client **p = &ov->clients; *p; p = &(*p)->next)
                if (*p == c) {
                        *p = c->next;
                        break;
                }
        sd_bus_track_unref(c->track);
        free(c->sender);
        free(c);
}

/* End one override; restore its owner if it was the last (unless the
 * owner is gone, when there is nothing to restore). */
static void record_end(Overrides *ov, Record **p, bool owner_alive) {
        Record *r = *p;
        Owner *o = r->owner;
        *p = r->next;
        (void) override_stack_pop(&o->stack, r->c);
        r->client->n--;
        if (owner_alive) {
                int e = owner_apply(o);
                if (e < 0 && e != -ESRCH)
                        log_warning_errno(e, "override of thread %d: cannot restore: %m", o->ref.tid);
        }
        if (override_stack_empty(&o->stack))
                owner_free(ov, o);
        free(r);
}

/* End every record for which match() says so. */
static void end_matching(Overrides *ov, bool (*match)(const Record *r, const void *what), const void *what,
                         bool owner_alive) {
        Record **p = &ov->records;
        while (*p)
                if (match(*p, what))
                        record_end(ov, p, owner_alive);
                else
                        p = &(*p)->next;
}

static bool record_of_owner(const Record *r, const void *what) {
        return r->owner == what;
}

static bool record_of_client(const Record *r, const void *what) {
        return r->client == what;
}

static int on_owner_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Owner *o = userdata;
        Overrides *ov = o->manager->overrides;
        log_debug("thread %d exited with overrides: dropped", o->ref.tid);
        end_matching(ov, record_of_owner, o, false);
        return 0;
}

static int on_client_gone(sd_bus_track *t, void *userdata) {
        Client *c = userdata;
        Overrides *ov = c->manager->overrides;
        log_debug("%s left the bus with %zu override(s): ended", c->sender, c->n);
        end_matching(ov, record_of_client, c, true);
        client_free(ov, c);
        return 0;
}

static int client_get(Manager *m, sd_bus_message *msg, Client **ret) {
        Overrides *ov = m->overrides;
        const char *sender = sd_bus_message_get_sender(msg);
        if (!sender)
                return -EINVAL;
        for (Client *c = ov->clients; c; c = c->next)
                if (strcmp(c->sender, sender) == 0) {
                        *ret = c;
                        return 0;
                }
        Client *c = calloc(1, sizeof(*c));
        if (!c || !(c->sender = strdup(sender))) {
                free(c);
                return -ENOMEM;
        }
        c->manager = m;
        int r = sd_bus_track_new(m->bus, &c->track, on_client_gone, c);
        if (r >= 0)
                r = sd_bus_track_add_sender(c->track, msg);
        if (r < 0) {
                sd_bus_track_unref(c->track);
                free(c->sender);
                free(c);
                return r;
        }
        c->next = ov->clients;
        ov->clients = c;
        *ret = c;
        return 0;
}

static int owner_get(Manager *m, const TaskRef *ref, Owner **ret) {
        Overrides *ov = m->overrides;
        for (Owner *o = ov->owners; o; o = o->next)
                if (o->ref.tid == ref->tid && o->ref.start_time == ref->start_time) {
                        *ret = o;
                        return 0;
                }
        Owner *o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        o->manager = m;
        o->ref = TASK_REF_NULL;
        int r = task_ref_open(ref->tid, ref->start_time, &o->ref);
        if (r >= 0)
                r = task_ref_read_attr(&o->ref, &o->base);
        if (r >= 0 && task_attr_is_realtime(&o->base))
                r = -EBUSY;
        if (r >= 0 && o->ref.pidfd >= 0)
                r = sd_event_add_io(m->event, &o->exit_watch, o->ref.pidfd, EPOLLIN, on_owner_exit, o);
        if (r < 0) {
                sd_event_source_disable_unref(o->exit_watch);
                task_ref_close(&o->ref);
                free(o);
                return r;
        }
        o->base_class = class_from_attr(&o->base, kernel_caps());
        o->next = ov->owners;
        ov->owners = o;
        *ret = o;
        return 0;
}

/* The thread tid, started at start, belongs to process pid. */
static int check_own(pid_t pid, pid_t tid, uint64_t start, TaskRef *ret) {
        pid_t tgid;
        int r = proc_tgid(tid, &tgid);
        if (r < 0)
                return -ESRCH;
        if (tgid != pid)
                return -EPERM;
        if (start == 0)
                return -EINVAL;
        return task_ref_open(tid, start, ret);
}

static int sender_pid(sd_bus_message *msg, pid_t *ret) {
        sd_bus_creds *creds = NULL;
        int r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_PID, &creds);
        if (r >= 0)
                r = sd_bus_creds_get_pid(creds, ret);
        sd_bus_creds_unref(creds);
        return r;
}

static int refuse(sd_bus_error *error, int r, pid_t waiter, pid_t owner) {
        switch (r) {
        case -ESRCH:
                return sd_bus_error_setf(error, QOS_BUS_ERROR_NO_SUCH_TASK,
                                         "Thread %d or %d does not exist (or its start time differs).",
                                         waiter, owner);
        case -EPERM:
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "Threads %d and %d must both belong to the caller.", waiter, owner);
        case -EBUSY:
                return sd_bus_error_setf(error, QOS_BUS_ERROR_REALTIME,
                                         "Thread %d is real-time scheduled; qosd leaves it alone.", owner);
        case -EINVAL:
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid arguments.");
        case -EAGAIN:
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "Too many overrides held (at most %d).", OVERRIDES_PER_CLIENT);
        default:
                return sd_bus_error_set_errnof(error, r, "Cannot begin the override: %s", strerror(-r));
        }
}

int method_begin_override(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int32_t waiter, owner;
        uint64_t waiter_start, owner_start;
        const char *class_name;
        TaskRef wref = TASK_REF_NULL, oref = TASK_REF_NULL;
        TaskAttr wattr;
        Client *client;
        Owner *o;
        pid_t pid;
        int r;

        r = sd_bus_message_read(msg, QOS_BUS_SIGNATURE_BEGIN_OVERRIDE, &waiter, &waiter_start, &owner,
                                &owner_start, &class_name);
        if (r < 0)
                return r;
        int asked = qclass_from_string(class_name);
        if (asked < 0 || !qclass_is_valid(asked) || waiter <= 0 || owner <= 0)
                return refuse(error, -EINVAL, waiter, owner);
        if (!get(m))
                return -ENOMEM;
        r = sender_pid(msg, &pid);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot determine the caller: %s", strerror(-r));

        /* Both threads the caller's own, pinned by start time; the waiter
         * lends what the kernel says it has now - never more. */
        r = check_own(pid, waiter, waiter_start, &wref);
        if (r >= 0)
                r = check_own(pid, owner, owner_start, &oref);
        if (r >= 0)
                r = task_ref_read_attr(&wref, &wattr);
        task_ref_close(&wref);
        if (r < 0) {
                task_ref_close(&oref);
                return refuse(error, r, waiter, owner);
        }
        QClass lent = qclass_min((QClass) asked, class_from_attr(&wattr, kernel_caps()));

        r = client_get(m, msg, &client);
        if (r >= 0 && client->n >= OVERRIDES_PER_CLIENT)
                r = -EAGAIN;
        if (r >= 0)
                r = owner_get(m, &oref, &o);
        task_ref_close(&oref);
        if (r < 0)
                return refuse(error, r, waiter, owner);

        Record *rec = calloc(1, sizeof(*rec));
        if (!rec)
                return -ENOMEM;
        *rec = (Record) { .id = ++m->overrides->next_id, .client = client, .owner = o, .c = lent };
        rec->next = m->overrides->records;
        m->overrides->records = rec;
        client->n++;
        override_stack_push(&o->stack, lent);
        r = owner_apply(o);
        if (r < 0) {
                record_end(m->overrides, &m->overrides->records, r != -ESRCH);
                return refuse(error, r, waiter, owner);
        }
        log_debug("override %" PRIu64 ": thread %d lends %s to thread %d", rec->id, waiter, qclass_to_string(lent),
                  owner);
        return sd_bus_reply_method_return(msg, "ts", rec->id, qclass_to_string(lent));
}

int method_end_override(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *sender = sd_bus_message_get_sender(msg);
        uint64_t id;
        int r = sd_bus_message_read(msg, QOS_BUS_SIGNATURE_END_OVERRIDE, &id);
        if (r < 0)
                return r;
        /* Only the connection that began an override may end it. */
        for (Record **p = m->overrides ? &m->overrides->records : NULL; p && *p; p = &(*p)->next)
                if ((*p)->id == id && sender && strcmp((*p)->client->sender, sender) == 0) {
                        record_end(m->overrides, p, true);
                        return sd_bus_reply_method_return(msg, "");
                }
        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "No override %" PRIu64 " of yours.", id);
}

size_t overrides_count(const Manager *m) {
        size_t n = 0;
        for (Record *r = m->overrides ? m->overrides->records : NULL; r; r = r->next)
                n++;
        return n;
}

void overrides_free(Manager *m) {
        Overrides *ov = m->overrides;
        if (!ov)
                return;
        while (ov->records)
                record_end(ov, &ov->records, true);
        while (ov->clients)
                client_free(ov, ov->clients);
        free(ov);
        m->overrides = NULL;
}
