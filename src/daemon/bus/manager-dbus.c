/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker.h"
#include "core/bus-protocol.h"
#include "core/clock.h"
#include "bus/bus-link.h"
#include "bus/manager-dbus.h"
#include "explain/explain.h"
#include "core/log.h"
#include "core/macro.h"
#include "overrides/override-book.h"
#include "overrides/overrides.h"
#include "core/proc.h"
#include "state/query-limits.h"
#include "core/sched-profile.h"
#include "qos-config.h"
#include "reload/reload.h"
#include "groups/units.h"
#include "core/utf8-escape.h"

/* Every string qosd puts on the bus goes through utf8_escape(): sd-bus
 * refuses one that is not valid UTF-8, and with it the whole reply, so a
 * thread's name, a file's name or a message quoting either would make the
 * call fail for every caller. Only qosd's own words (class and state
 * names, numbers) go as they are. */

/* Defence in depth beside the bus policy: changing methods are for a
 * caller that could change any thread itself (uid 0 and CAP_SYS_NICE;
 * caller-identity.h), never for a root service stripped of CAP_SYS_NICE. */
static int require_privileged(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        Caller caller;
        int r = broker_identify(m, msg, &caller, error);
        if (r < 0)
                return r;
        if (!caller.privileged)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                        "Only root with CAP_SYS_NICE may do this.");
        return 0;
}

/* Who asks, and whether their user may ask again now (query-limits.h):
 * before any work, so a flood costs a hash lookup and an error each. */
static int admit(Manager *m, sd_bus_message *msg, QueryKind kind, Caller *ret, sd_bus_error *error) {
        int r = broker_identify(m, msg, ret, error);
        if (r < 0)
                return r;
        if (!query_limits_take(&m->queries, kind, ret->uid, clock_usec(CLOCK_MONOTONIC))) {
                log_debug("%s from pid %d uid %u: rate limited", query_name(kind), (int) ret->pid,
                          (unsigned) ret->uid);
                return sd_bus_error_setf(error, QOS_BUS_ERROR_RATE_LIMITED,
                                         "Too many %s calls from uid %u (at most %g a second, bursts of %g); "
                                         "try again in a moment.", query_name(kind), (unsigned) ret->uid,
                                         query_rate(kind), query_burst(kind));
        }
        return 0;
}

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

static int method_list_tasks(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        sd_bus_message *reply = NULL;
        Caller caller;
        int all, r;

        r = sd_bus_message_read(msg, "b", &all);
        if (r < 0)
                return r;
        r = admit(m, msg, QUERY_LIST_TASKS, &caller, error);
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

static int method_explain(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
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
        r = admit(m, msg, QUERY_EXPLAIN, &caller, error);
        if (r < 0)
                return r;
        r = explain_thread(m, tid, caller.uid, &x);
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

/* Every loan qosd holds in the caller's own processes (root: all of
 * them): lock addresses are the process's memory layout, not for others. */
static int method_list_loans(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ LoanInfo *loans = NULL;
        size_t n = 0;
        Caller caller;
        int r = admit(m, msg, QUERY_LIST_TASKS, &caller, error);
        if (r < 0)
                return r;
        r = override_loans(m, 0, 0, &loans, &n);
        if (r >= 0)
                r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', QOS_BUS_SIGNATURE_LOAN_ROW);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const LoanInfo *l = &loans[i];
                if (caller.uid != 0 && proc_owned_by(l->pid, caller.uid) <= 0)
                        continue;
                r = sd_bus_message_append(reply, QOS_BUS_SIGNATURE_LOAN_ROW, (int32_t) l->pid, (int32_t) l->owner,
                                          (int32_t) l->lender, (int32_t) l->via, l->lock, qclass_to_string(l->c),
                                          qclass_to_string(l->base_class), qclass_to_string(l->lender_class));
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r = require_privileged(m, msg, error);
        if (r < 0)
                return r;
        r = reload_rules(m, false);
        if (r < 0 && r != -EINVAL)
                return sd_bus_error_set_errnof(error, r, "Reload failed: %s", strerror(-r));
        /* Only root may reload: the whole message, every user's files too
         * (escaped for the bus already: reload-status.h). */
        _cleanup_free_ char *message = reload_status_message(&m->last_reload, 0);
        if (!message)
                return -ENOMEM;
        if (r == -EINVAL)
                return sd_bus_error_setf(error, QOS_BUS_ERROR_INVALID_CONFIG,
                                         "Errors in the rules; the previous rules stay in force:\n%s", message);
        return sd_bus_reply_method_return(msg, "s", message);
}

static int method_set_profile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *name;
        int r = require_privileged(m, msg, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return r;
        _cleanup_free_ char *report = NULL;
        r = sched_profile_switch(&m->profile, m->sys_root, name, &report);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Unknown profile '%s' (valid: %s).", name, sched_profile_names());
        /* The report quotes what the kernel's files hold. */
        _cleanup_free_ char *text = utf8_escape(report ?: (r < 0 ? strerror(-r) : ""));
        if (!text)
                return -ENOMEM;
        if (r < 0)
                return sd_bus_error_setf(error, QOS_BUS_ERROR_PROFILE, "%s", text);
        return sd_bus_reply_method_return(msg, "s", text);
}

static int method_get_profile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        sd_bus_message *reply = NULL;
        ProfileKnobState *st = NULL;
        Caller caller;
        size_t n = 0;
        int r = admit(m, msg, QUERY_GET_PROFILE, &caller, error);
        if (r < 0)
                return r;
        r = sched_profile_describe(m->profile, m->sys_root, &st, &n);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "s", sched_profile_current(m->profile));
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sss)");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                _cleanup_free_ char *path = utf8_escape(st[i].path), *value = utf8_escape(st[i].value),
                                    *status = utf8_escape(st[i].status);
                r = path && value && status ? sd_bus_message_append(reply, "(sss)", path, value, status) : -ENOMEM;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        profile_knob_states_free(st, n);
        return r;
}

static uint64_t event_queue_bytes(const Manager *m) {
        uint64_t v = 0;
        if (m->source)
                (void) event_source_queued(m->source, &v);
        return v;
}

/* Counters as properties: GetAll is `qosctl status`. */
#define COUNTER(name, field)                                                                      \
        static int get_##field(sd_bus *bus, const char *path, const char *iface, const char *prop, \
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {      \
                Manager *m = userdata;                                                            \
                return sd_bus_message_append(reply, "t", (uint64_t) (name));                      \
        }
COUNTER(m->source ? event_source_stats(m->source)->events : 0, events)
COUNTER(m->source ? event_source_stats(m->source)->enobufs : 0, enobufs)
COUNTER(m->source ? event_source_stats(m->source)->seq_gaps : 0, seq_gaps)
COUNTER(m->source ? event_source_stats(m->source)->rests : 0, rests)
COUNTER(m->counters.rescans, rescans)
COUNTER(m->counters.losses_pending, losses_pending)
COUNTER(event_queue_bytes(m), queue_bytes)
COUNTER(m->counters.applied, applied)
COUNTER(m->counters.unchanged, unchanged)
COUNTER(m->counters.restored, restored)
COUNTER(m->counters.inherited, inherited)
COUNTER(m->counters.foreign, foreign)
COUNTER(m->counters.realtime_skipped, realtime_skipped)
COUNTER(m->counters.refused, refused)
COUNTER(m->counters.vanished, vanished)
COUNTER(m->counters.recovered, recovered)
COUNTER(m->counters.reloads, reloads)
COUNTER(m->counters.reload_failures, reload_failures)
COUNTER(m->last_reload.time_usec, last_reload_time)
COUNTER(registry_size(&m->tasks), tasks_managed)
COUNTER(overrides_count(m), active_overrides)
COUNTER(overrides_limited(m), overrides_limited)
COUNTER(process_table_size(&m->procs), processes_tracked)
COUNTER(m->source ? (uint64_t) event_source_rcvbuf(m->source) : 0, rcvbuf)
COUNTER(m->queries.limited, queries_limited)
COUNTER(m->source ? event_source_stats(m->source)->reopens : 0, reopens)
COUNTER(bus_link_connections(m), bus_connections)

/* Who reads a property: its uid, as for the methods (root: 0); one that
 * cannot be told reads as nobody in particular, the system's part only. */
static uid_t viewer(Manager *m, sd_bus *bus) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *msg = sd_bus_get_current_message(bus);
        Caller caller;
        int r = msg && m->broker ? broker_identify(m, msg, &caller, &error) : -ESRCH;
        sd_bus_error_free(&error);
        return r < 0 ? (uid_t) -1 : caller.uid;
}

static int get_user_reloads(sd_bus *bus, const char *path, const char *iface, const char *prop,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        return sd_bus_message_append(reply, "t", reload_user_reloads(m, viewer(m, bus)));
}

/* The reload's result and the rules counted as the reader may see them:
 * another user's files are not theirs to learn of (reload-status.h). */
static int get_rules_loaded(sd_bus *bus, const char *path, const char *iface, const char *prop,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        uint64_t n = m->rules ? reload_status_rules(m->rules, &m->user_dirs, viewer(m, bus)) : 0;
        return sd_bus_message_append(reply, "t", n);
}

static int get_last_reload_ok(sd_bus *bus, const char *path, const char *iface, const char *prop,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        return sd_bus_message_append(reply, "b", reload_status_ok(&m->last_reload, viewer(m, bus)));
}

static int get_last_reload_message(sd_bus *bus, const char *path, const char *iface, const char *prop,
                                   sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_free_ char *message = reload_status_message(&m->last_reload, viewer(m, bus));
        if (!message)
                return -ENOMEM;
        return sd_bus_message_append(reply, "s", message);
}

static int get_string(sd_bus *bus, const char *path, const char *iface, const char *prop,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *v = "";
        char units_buf[512];
        if (strcmp(prop, "Profile") == 0)
                v = sched_profile_current(m->profile);
        else if (strcmp(prop, "Version") == 0)
                v = QOS_VERSION;
        else if (strcmp(prop, "CrashRecovery") == 0)
                v = state_file_status(&m->state, units_buf, sizeof units_buf);
        else if (strcmp(prop, "SystemdUnits") == 0)
                v = units_status(m, units_buf, sizeof units_buf);
        else if (strcmp(prop, "UserRules") == 0)
                v = !m->settings.user_rules ? "off (UserRules=no)"
                    : m->user_rules_off     ? "off: qosd cannot read files as their user (needs CAP_SETUID and CAP_SETGID)"
                                            : "on";
        _cleanup_free_ char *text = utf8_escape(v); /* the units' status names units and cgroups */
        return text ? sd_bus_message_append(reply, "s", text) : -ENOMEM;
}

#define PROP_T(name, field) SD_BUS_PROPERTY(name, "t", get_##field, 0, 0)

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_NAMES("ListTasks", "b", SD_BUS_PARAM(all), "a(iisssss)", SD_BUS_PARAM(tasks),
                                 method_list_tasks, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Explain", "i", SD_BUS_PARAM(tid), "a(ss)", SD_BUS_PARAM(lines),
                                 method_explain, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Reload", "", , "s", SD_BUS_PARAM(result), method_reload, 0),
        SD_BUS_METHOD_WITH_NAMES("SetProfile", "s", SD_BUS_PARAM(name), "s", SD_BUS_PARAM(report),
                                 method_set_profile, 0),
        SD_BUS_METHOD_WITH_NAMES("GetProfile", "", , "sa(sss)", SD_BUS_PARAM(name) SD_BUS_PARAM(knobs),
                                 method_get_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_BEGIN_OVERRIDE, QOS_BUS_SIGNATURE_BEGIN_OVERRIDE,
                                 SD_BUS_PARAM(waiter_tid) SD_BUS_PARAM(waiter_start) SD_BUS_PARAM(owner_tid)
                                 SD_BUS_PARAM(owner_start) SD_BUS_PARAM(class),
                                 "ts", SD_BUS_PARAM(override_id) SD_BUS_PARAM(lent_class),
                                 method_begin_override, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_BEGIN_LOCK_OVERRIDE, QOS_BUS_SIGNATURE_BEGIN_LOCK_OVERRIDE,
                                 SD_BUS_PARAM(waiter_tid) SD_BUS_PARAM(waiter_start) SD_BUS_PARAM(owner_tid)
                                 SD_BUS_PARAM(owner_start) SD_BUS_PARAM(class) SD_BUS_PARAM(lock),
                                 "tsai", SD_BUS_PARAM(override_id) SD_BUS_PARAM(lent_class) SD_BUS_PARAM(chain),
                                 method_begin_lock_override, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_LIST_LOANS, "", , "a" QOS_BUS_SIGNATURE_LOAN_ROW,
                                 SD_BUS_PARAM(loans), method_list_loans, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_END_OVERRIDE, QOS_BUS_SIGNATURE_END_OVERRIDE,
                                 SD_BUS_PARAM(override_id), "", , method_end_override, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Version", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        PROP_T("RulesLoaded", rules_loaded),
        PROP_T("TasksManaged", tasks_managed),
        PROP_T("ActiveOverrides", active_overrides),
        PROP_T("OverridesLimited", overrides_limited),
        PROP_T("ProcessesTracked", processes_tracked),
        PROP_T("EventsSeen", events),
        PROP_T("EventsLost", enobufs),
        PROP_T("SequenceGaps", seq_gaps),
        PROP_T("EventRests", rests),
        PROP_T("ReceiveBuffer", rcvbuf),
        PROP_T("ConnectorReopens", reopens),
        PROP_T("BusConnections", bus_connections),
        PROP_T("Rescans", rescans),
        PROP_T("LossesPending", losses_pending),
        PROP_T("EventQueueBytes", queue_bytes),
        PROP_T("Applied", applied),
        PROP_T("Unchanged", unchanged),
        PROP_T("Restored", restored),
        PROP_T("Inherited", inherited),
        PROP_T("ForeignChanges", foreign),
        PROP_T("RealtimeSkipped", realtime_skipped),
        PROP_T("KnobsRefused", refused),
        PROP_T("Vanished", vanished),
        PROP_T("Recovered", recovered),
        PROP_T("Reloads", reloads),
        PROP_T("ReloadFailures", reload_failures),
        PROP_T("UserReloads", user_reloads),
        PROP_T("LastReloadTime", last_reload_time),
        PROP_T("QueriesRateLimited", queries_limited),
        SD_BUS_PROPERTY("LastReloadOK", "b", get_last_reload_ok, 0, 0),
        SD_BUS_PROPERTY("LastReloadMessage", "s", get_last_reload_message, 0, 0),
        SD_BUS_PROPERTY("Profile", "s", get_string, 0, 0),
        SD_BUS_PROPERTY("UserRules", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SystemdUnits", "s", get_string, 0, 0),
        SD_BUS_PROPERTY("CrashRecovery", "s", get_string, 0, 0),
        SD_BUS_VTABLE_END,
};

int dbus_manager_register(Manager *m) {
        int r = sd_bus_add_object_vtable(m->bus, NULL, QOS_BUS_PATH, QOS_BUS_INTERFACE, manager_vtable, m);
        if (r < 0)
                return log_error_errno(r, "cannot export %s: %m", QOS_BUS_PATH);
        return broker_start(m);
}

void dbus_manager_stop(Manager *m) {
        broker_free(m);
        if (!m->bus)
                return;
        /* Flush only a running connection: one still connecting would make
         * the flush wait for it without a limit. */
        if (sd_bus_is_ready(m->bus) > 0)
                (void) sd_bus_flush(m->bus);
        m->bus = sd_bus_close_unref(m->bus);
}
