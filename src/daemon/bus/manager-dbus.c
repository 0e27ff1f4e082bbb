/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker-dbus.h"
#include "broker/broker.h"
#include "core/bus-protocol.h"
#include "core/clock.h"
#include "bus/bus-link.h"
#include "bus/manager-dbus.h"
#include "engine/event-source.h"
#include "explain/explain-dbus.h"
#include "focus/focus-dbus.h"
#include "bus/profile-dbus.h"
#include "overrides/overrides-dbus.h"
#include "reload/reload-dbus.h"
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
#include "power/power.h"
#include "core/utf8-escape.h"

/* Every string qosd puts on the bus goes through utf8_escape(): sd-bus
 * refuses one that is not valid UTF-8, and with it the whole reply, so a
 * thread's name, a file's name or a message quoting either would make the
 * call fail for every caller. Only qosd's own words (class and state
 * names, numbers) go as they are. */

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
        int r = msg ? caller_identify_or_refuse(&m->callers, msg, &caller, &error) : -ESRCH;
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
        else if (strcmp(prop, "Power") == 0)
                v = power_describe(m, units_buf, sizeof units_buf);
        else if (strcmp(prop, "UserRules") == 0)
                v = !m->settings.user_rules ? "off (UserRules=no)"
                    : m->user_rules_off     ? "off: qosd cannot read files as their user (needs CAP_SETUID and CAP_SETGID)"
                                            : "on";
        _cleanup_free_ char *text = utf8_escape(v); /* the units' status names units and cgroups */
        return text ? sd_bus_message_append(reply, "s", text) : -ENOMEM;
}

#define PROP_T(name, field) SD_BUS_PROPERTY(name, "t", get_##field, 0, 0)

/* org.qosd.QoS1.Manager, all of it: each entry's handler lives with its
 * feature, in that folder's *-dbus.c. A new method is a line here and a
 * handler there (docs/development.md). */
static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        /* The broker: broker/broker-dbus.c */
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_SET_THREAD_CLASS, QOS_BUS_SIGNATURE_SET_THREAD_CLASS,
                                 SD_BUS_PARAM(tid) SD_BUS_PARAM(start_time) SD_BUS_PARAM(class)
                                 SD_BUS_PARAM(relative_priority),
                                 "ss", SD_BUS_PARAM(granted_class) SD_BUS_PARAM(reason),
                                 broker_method_set_thread_class, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("RequestsGranted", "t", broker_property, 0, 0),
        SD_BUS_PROPERTY("RequestsHeld", "t", broker_property, 0, 0),
        SD_BUS_PROPERTY("RequestsDenied", "t", broker_property, 0, 0),
        SD_BUS_PROPERTY("RequestsRateLimited", "t", broker_property, 0, 0),
        /* The foreground: focus/focus-dbus.c */
        SD_BUS_METHOD_WITH_NAMES("SetForeground", "ai", SD_BUS_PARAM(pids), "", ,
                                 focus_method_set_foreground, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetFocus", "si", SD_BUS_PARAM(source) SD_BUS_PARAM(pid), "", ,
                                 focus_method_set_focus, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ResetForeground", "", "", focus_method_reset_foreground, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetGames", "ai", SD_BUS_PARAM(pids), "", , focus_method_set_games,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetAudio", "ai", SD_BUS_PARAM(pids), "", , focus_method_set_audio,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetForeground", "", , "aib", SD_BUS_PARAM(pids) SD_BUS_PARAM(gate),
                                 focus_method_get_foreground, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Foreground", "s", focus_property, 0, 0),
        SD_BUS_PROPERTY("ForegroundEvents", "t", focus_property, 0, 0),
        SD_BUS_PROPERTY("ForegroundRefused", "t", focus_property, 0, 0),
        SD_BUS_PROPERTY("Games", "s", focus_property, 0, 0),
        SD_BUS_PROPERTY("Audio", "s", focus_property, 0, 0),
        /* Loans: overrides/overrides-dbus.c */
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_BEGIN_OVERRIDE, QOS_BUS_SIGNATURE_BEGIN_OVERRIDE,
                                 SD_BUS_PARAM(waiter_tid) SD_BUS_PARAM(waiter_start) SD_BUS_PARAM(owner_tid)
                                 SD_BUS_PARAM(owner_start) SD_BUS_PARAM(class),
                                 "ts", SD_BUS_PARAM(override_id) SD_BUS_PARAM(lent_class),
                                 overrides_method_begin_override, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_BEGIN_LOCK_OVERRIDE, QOS_BUS_SIGNATURE_BEGIN_LOCK_OVERRIDE,
                                 SD_BUS_PARAM(waiter_tid) SD_BUS_PARAM(waiter_start) SD_BUS_PARAM(owner_tid)
                                 SD_BUS_PARAM(owner_start) SD_BUS_PARAM(class) SD_BUS_PARAM(lock),
                                 "tsai", SD_BUS_PARAM(override_id) SD_BUS_PARAM(lent_class) SD_BUS_PARAM(chain),
                                 overrides_method_begin_lock_override, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_LIST_LOANS, "", , "a" QOS_BUS_SIGNATURE_LOAN_ROW,
                                 SD_BUS_PARAM(loans), overrides_method_list_loans, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES(QOS_BUS_METHOD_END_OVERRIDE, QOS_BUS_SIGNATURE_END_OVERRIDE,
                                 SD_BUS_PARAM(override_id), "", , overrides_method_end_override,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        /* What qosd does and why: explain/explain-dbus.c */
        SD_BUS_METHOD_WITH_NAMES("ListTasks", "b", SD_BUS_PARAM(all), "a(iisssss)", SD_BUS_PARAM(tasks),
                                 explain_method_list_tasks, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Explain", "i", SD_BUS_PARAM(tid), "a(ss)", SD_BUS_PARAM(lines),
                                 explain_method_explain, SD_BUS_VTABLE_UNPRIVILEGED),
        /* The rules: reload/reload-dbus.c */
        SD_BUS_METHOD_WITH_NAMES("Reload", "", , "s", SD_BUS_PARAM(result), reload_method_reload, 0),
        /* The kernel's scheduler profile: bus/profile-dbus.c */
        SD_BUS_METHOD_WITH_NAMES("SetProfile", "s", SD_BUS_PARAM(name), "s", SD_BUS_PARAM(report),
                                 profile_method_set, 0),
        SD_BUS_METHOD_WITH_NAMES("GetProfile", "", , "sa(sss)", SD_BUS_PARAM(name) SD_BUS_PARAM(knobs),
                                 profile_method_get, SD_BUS_VTABLE_UNPRIVILEGED),
        /* The daemon's state and counters: here */
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
        SD_BUS_PROPERTY("Power", "s", get_string, 0, 0),
        SD_BUS_PROPERTY("CrashRecovery", "s", get_string, 0, 0),
        SD_BUS_VTABLE_END,
};

int dbus_manager_register(Manager *m) {
        /* Watch connections before any method call can arrive: who calls
         * (caller-identity.h), and the session sources' claims (focus). */
        int r = caller_book_start(&m->callers, m->bus);
        if (r >= 0)
                r = focus_bus_start(m);
        if (r >= 0)
                r = broker_start(m);
        if (r >= 0)
                r = power_bus_start(m);
        if (r < 0)
                return r;
        r = sd_bus_add_object_vtable(m->bus, NULL, QOS_BUS_PATH, QOS_BUS_INTERFACE, manager_vtable, m);
        if (r < 0)
                return log_error_errno(r, "cannot export %s: %m", QOS_BUS_PATH);
        return 0;
}

void dbus_manager_stop(Manager *m) {
        caller_book_free(&m->callers);
        broker_free(m);
        if (!m->bus)
                return;
        /* Flush only a running connection: one still connecting would make
         * the flush wait for it without a limit. */
        if (sd_bus_is_ready(m->bus) > 0)
                (void) sd_bus_flush(m->bus);
        m->bus = sd_bus_close_unref(m->bus);
}
