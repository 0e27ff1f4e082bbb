/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus-protocol.h"
#include "qos-focus/focus-report.h"
#include "core/log.h"
#include "core/macro.h"

#define CALL_TIMEOUT_USEC (1000 * 1000)

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        if (e)
                log_info("qosd did not take the focus: %s", e->message ?: e->name);
        return 0;
}

static const struct {
        const char *method, *what;
} lists[_REPORT_LIST_MAX] = {
        [REPORT_GAMES] = { "SetGames", "the games" },
        [REPORT_AUDIO] = { "SetAudio", "the apps playing audio" },
};

static int on_list_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        if (e)
                log_info("qosd did not take %s: %s", (const char *) userdata, e->message ?: e->name);
        return 0;
}

static void send_list(FocusReport *r, ReportList k) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        const ReportedPids *l = &r->lists[k];
        int q = sd_bus_message_new_method_call(r->bus, &m, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                               lists[k].method);
        if (q >= 0)
                q = sd_bus_message_append_array(m, 'i', l->pids, l->n * sizeof *l->pids);
        if (q >= 0)
                q = sd_bus_call_async(r->bus, NULL, m, on_list_reply, (void *) lists[k].what, 0);
        if (q < 0)
                log_warning_errno(q, "cannot tell qosd %s: %m", lists[k].what);
}

int focus_report_list(FocusReport *r, ReportList k, const pid_t *pids, size_t n) {
        ReportedPids *l = &r->lists[k];
        if (l->known && l->n == n && (n == 0 || memcmp(l->pids, pids, n * sizeof *pids) == 0))
                return 0;
        pid_t *copy = calloc(n + 1, sizeof *copy);
        if (!copy)
                return -ENOMEM;
        if (n > 0)
                memcpy(copy, pids, n * sizeof *copy);
        free(l->pids);
        *l = (ReportedPids) { .pids = copy, .n = n, .known = true };
        log_debug("%s: %zu", lists[k].what, n);
        send_list(r, k);
        return 0;
}

static void send_now(FocusReport *r) {
        int q = sd_bus_call_method_async(r->bus, NULL, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, "SetFocus",
                                         on_reply, r, "si", r->source, (int32_t) r->pid);
        if (q < 0) {
                log_warning_errno(q, "cannot tell qosd the focus: %m");
                return;
        }
        r->sent = r->pid;
}

void focus_report(FocusReport *r, const char *source, pid_t pid) {
        bool same_source = strcmp(r->source, source) == 0;
        snprintf(r->source, sizeof r->source, "%s", source);
        r->pid = pid;
        if (same_source && r->sent == pid)
                return;
        send_now(r);
}

static int on_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        FocusReport *r = userdata;
        const char *name, *old, *new;
        if (sd_bus_message_read(msg, "sss", &name, &old, &new) < 0 || strcmp(name, QOS_BUS_NAME) != 0 || !*new)
                return 0;
        log_info("qosd appeared on the bus: telling it the focus");
        if (r->source[0])
                send_now(r);
        for (ReportList k = 0; k < _REPORT_LIST_MAX; k++)
                if (r->lists[k].known)
                        send_list(r, k);
        return 0;
}

int focus_report_open(FocusReport *r, sd_event *event) {
        int q;
        *r = (FocusReport) { .sent = -1 };
        q = sd_bus_open_system(&r->bus);
        if (q < 0)
                return log_error_errno(q, "cannot connect to the system bus: %m");
        q = sd_bus_set_method_call_timeout(r->bus, CALL_TIMEOUT_USEC);
        if (q >= 0)
                q = sd_bus_match_signal(r->bus, &r->owner_slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "NameOwnerChanged", on_owner_changed, r);
        if (q >= 0)
                q = sd_bus_set_exit_on_disconnect(r->bus, true); /* a new bus needs a new helper */
        if (q >= 0)
                q = sd_bus_attach_event(r->bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (q < 0) {
                focus_report_close(r);
                return log_error_errno(q, "cannot use the system bus: %m");
        }
        return 0;
}

void focus_report_close(FocusReport *r) {
        r->owner_slot = sd_bus_slot_unref(r->owner_slot);
        for (ReportList k = 0; k < _REPORT_LIST_MAX; k++) {
                free(r->lists[k].pids);
                r->lists[k] = (ReportedPids) {};
        }
        r->bus = sd_bus_flush_close_unref(r->bus);
}
