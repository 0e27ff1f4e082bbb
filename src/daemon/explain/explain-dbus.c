/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>

#include "caller/caller-tid.h"
#include "core/bus-protocol.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/proc.h"
#include "core/utf8-escape.h"
#include "explain/explain-dbus.h"
#include "explain/explain.h"
#include "state/query-admit.h"

/* The rows of a ListTasks reply, as the caller may see them, at most
 * ListTasksMax=: the reply's size and the time one call holds the event
 * loop stay bounded on any machine. */
typedef struct RowSink {
        sd_bus_message *reply;
        uid_t viewer;
        size_t n;
} RowSink;

/* 1: added, 0: the list is full, <0: error. */
static int add_row(Manager *m, RowSink *s, pid_t pid, pid_t tid, bool own) {
        TaskRow row;
        if (s->n >= m->settings.list_tasks_max)
                return 0;
        if (task_row_fill(m, pid, tid, own, &row) < 0)
                return 1; /* exited meanwhile: nothing to say */
        s->n++;
        /* The origin after its cut to TaskRow's size: a cut may split a character. */
        _cleanup_free_ char *comm = utf8_escape(row.comm), *origin = utf8_escape(row.origin);
        if (!comm || !origin)
                return -ENOMEM;
        int r = sd_bus_message_append(s->reply, "(iisssss)", (int32_t) row.pid, (int32_t) row.tid, comm,
                                      row.class, row.state, origin, row.knobs);
        return r < 0 ? r : 1;
}

static int list_all(Manager *m, RowSink *s) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n;
        int r = proc_list_pids(&pids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ pid_t *tids = NULL;
                size_t nt;
                if (proc_list_tasks(pids[i], &tids, &nt) < 0)
                        continue; /* exited meanwhile */
                bool own = explain_may_see(s->viewer, pids[i]);
                for (size_t j = 0; j < nt; j++) {
                        r = add_row(m, s, pids[i], tids[j], own);
                        if (r <= 0)
                                return r;
                }
        }
        return 1;
}

static int list_managed(Manager *m, RowSink *s) {
        _cleanup_free_ TaskEntry **list = NULL;
        size_t n;
        int r = registry_list(&m->tasks, &list, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = add_row(m, s, list[i]->tgid, list[i]->tid, explain_may_see(s->viewer, list[i]->tgid));
                if (r <= 0)
                        return r;
        }
        return 1;
}

int explain_method_list_tasks(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        sd_bus_message *reply = NULL;
        Caller caller;
        int all, r;

        r = sd_bus_message_read(msg, "b", &all);
        if (r < 0)
                return r;
        r = query_admit(m, msg, QUERY_LIST_TASKS, &caller, error);
        if (r < 0)
                return r;
        if (!query_limits_rows_ready(&m->queries, caller.uid, clock_usec(CLOCK_MONOTONIC)))
                return sd_bus_error_setf(error, QOS_BUS_ERROR_RATE_LIMITED,
                                         "ListTasks from uid %u has listed more than %g threads a second "
                                         "(bursts of %g); try again in a moment.", (unsigned) caller.uid,
                                         QUERY_ROWS_PER_SEC, QUERY_ROWS_BURST);
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(iisssss)");
        RowSink sink = { .reply = reply, .viewer = caller.uid };
        if (r >= 0)
                r = all ? list_all(m, &sink) : list_managed(m, &sink);
        query_limits_rows_charge(&m->queries, caller.uid, sink.n, clock_usec(CLOCK_MONOTONIC));
        if (r == 0) {
                char why[64];
                snprintf(why, sizeof why, "the list stops at %u threads (ListTasksMax=)", m->settings.list_tasks_max);
                log_debug("ListTasks: %s", why);
                r = sd_bus_message_append(reply, "(iisssss)", 0, 0, "", "", QOS_LIST_TASKS_TRUNCATED, why, "");
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

int explain_method_explain(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        sd_bus_message *reply = NULL;
        Explanation x = {};
        Caller caller;
        int32_t tid;
        int r;

        r = sd_bus_message_read(msg, "i", &tid);
        if (r < 0)
                return r;
        if (tid <= 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid thread ID %d.", tid);
        r = query_admit(m, msg, QUERY_EXPLAIN, &caller, error);
        if (r < 0)
                return r;
        /* From a sandbox: its own threads, by its namespace's numbers. */
        pid_t host = tid;
        r = caller_resolve_tid(&caller, tid, &host);
        if (r >= 0)
                r = explain_thread(m, host, caller.uid, &x);
        if (r == -ESRCH || r == -ENOENT)
                return sd_bus_error_setf(error, QOS_BUS_ERROR_NO_SUCH_TASK, "No such process or thread: %d.", tid);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ss)");
        for (size_t i = 0; r >= 0 && i < x.n; i++) {
                _cleanup_free_ char *key = utf8_escape(x.lines[i].key), *value = utf8_escape(x.lines[i].value);
                r = key && value ? sd_bus_message_append(reply, "(ss)", key, value) : -ENOMEM;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        explanation_clear(&x);
        return r;
}
