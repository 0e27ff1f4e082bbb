/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "caller/bus-args.h"
#include "core/bus-protocol.h"
#include "caller/caller-identity.h"
#include "core/clock.h"
#include "focus/focus-dbus.h"
#include "core/focus-source.h"
#include "focus/focus.h"
#include "focus/foreground.h"
#include "focus/relayed.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/proc.h"
#include "focus/seats.h"

/* Root, or the peer qosd.conf trusts with the foreground (the compositor). */
static bool is_trusted(Manager *m, sd_bus_message *msg, const Caller *c) {
        if (c->uid == 0 || (m->settings.foreground_uid != (uid_t) -1 && c->uid == m->settings.foreground_uid))
                return true;
        return m->settings.foreground_gid != (gid_t) -1 && caller_in_group(msg, m->settings.foreground_gid);
}

/* SetForeground and ResetForeground: root's and the compositor's. */
static int require_trusted(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        Caller caller;
        int r = caller_identify_or_refuse(&m->callers, msg, &caller, error);
        if (r < 0)
                return r;
        if (is_trusted(m, msg, &caller))
                return 0;
        focus_count_refused(m);
        return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                "Only root or the ForegroundUser=/ForegroundGroup= of qosd.conf may set the "
                                "foreground; a session source calls SetFocus.");
}

int focus_method_set_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n;
        int r;

        r = require_trusted(m, msg, error);
        if (r < 0)
                return r;
        r = bus_args_read_pids(msg, FOREGROUND_MAX, &pids, &n, error);
        if (r < 0)
                return r;
        r = focus_set(m, "SetForeground", (uid_t) -1, NULL, pids, n);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

int focus_method_reset_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r = require_trusted(m, msg, error);
        if (r < 0)
                return r;
        (void) focus_reset(m, "reset by a trusted caller (ResetForeground)");
        return sd_bus_reply_method_return(msg, "");
}

static int refuse(Manager *m, sd_bus_error *error, const Caller *c, const char *why) {
        focus_count_refused(m);
        log_debug("a foreground source, pid %d uid %u, refused: %s", (int) c->pid, (unsigned) c->uid, why);
        return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Refused: %s.", why);
}

/* A session source (SetFocus, SetGames): trusted, or the user of an
 * active seat session calling from it (if it has a session at all). owner:
 * the user it speaks for, (uid_t) -1 when trusted. */
static int admit_source(Manager *m, sd_bus_message *msg, Caller *caller, uid_t *ret_owner, sd_bus_error *error) {
        int r = caller_identify_or_refuse(&m->callers, msg, caller, error);
        if (r < 0)
                return r;
        *ret_owner = (uid_t) -1;
        if (is_trusted(m, msg, caller))
                return 0;
        if (!focus_user_at_seat(m, caller->uid))
                return refuse(m, error, caller, "the caller's user has no active session on a seat");
        if (!seats_session_of_pid_active(caller->pid))
                return refuse(m, error, caller, "the caller's session is not the active one");
        *ret_owner = caller->uid;
        return 0;
}

/* The process pid names, and that it is the owner's (any with -1). */
static int source_process(Manager *m, const Caller *caller, uid_t owner, pid_t pid, pid_t *ret_tgid,
                          sd_bus_error *error) {
        uid_t uid;
        if (proc_tgid(pid, ret_tgid) < 0 || proc_uid(*ret_tgid, &uid) < 0)
                return sd_bus_error_setf(error, QOS_BUS_ERROR_NO_SUCH_TASK, "No process %d.", (int) pid);
        if (owner != (uid_t) -1 && uid != owner)
                return refuse(m, error, caller, "the process belongs to another user");
        return 0;
}

/* What a session source's change may cost (focus.h); -errno with
 * RateLimited when over it. */
static int source_budget(Manager *m, const Caller *caller, uid_t owner, sd_bus_error *error) {
        if (owner == (uid_t) -1 || focus_budget_ready(m, owner))
                return 0;
        focus_count_refused(m);
        log_debug("pid %d uid %u: over its focus budget", (int) caller->pid, (unsigned) caller->uid);
        return sd_bus_error_setf(error, QOS_BUS_ERROR_RATE_LIMITED,
                                 "The focus changes of uid %u have cost qosd more than %g%% of a CPU; "
                                 "try again in a moment.", (unsigned) owner, FOCUS_COST_USEC_PER_SEC / 1e4);
}

/* Charge a session source's user for qosd's time since start (its thread's
 * CPU time, not the others'); a trusted caller has no budget. */
static void source_charge(Manager *m, uid_t owner, uint64_t start) {
        if (owner != (uid_t) -1)
                focus_budget_charge(m, owner, clock_usec(CLOCK_THREAD_CPUTIME_ID) - start);
}

int focus_method_set_focus(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *source;
        int32_t pid;
        pid_t tgid = 0;
        uid_t owner;
        Caller caller;
        int r;

        r = sd_bus_message_read(msg, "si", &source, &pid);
        if (r < 0)
                return r;
        if (!focus_source_name_valid(source))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "A source name is 1 to %d of [a-z0-9-].", FOCUS_SOURCE_MAX - 1);
        if (pid < 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "A PID is positive, or 0 for none.");
        r = admit_source(m, msg, &caller, &owner, error);
        if (r >= 0 && pid > 0)
                r = source_process(m, &caller, owner, pid, &tgid, error);
        if (r >= 0)
                r = source_budget(m, &caller, owner, error);
        if (r < 0)
                return r;
        /* The claim dies with the connection: a source that crashed must
         * not leave its last window in front for good. */
        uint64_t start = clock_usec(CLOCK_THREAD_CPUTIME_ID);
        r = focus_set(m, source, owner, sd_bus_message_get_sender(msg), &tgid, pid > 0);
        source_charge(m, owner, start);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

/* SetGames, SetAudio: a list of the caller's user's processes. */
static int set_relayed(sd_bus_message *msg, Manager *m, RelayedKind kind, sd_bus_error *error) {
        _cleanup_free_ pid_t *pids = NULL;
        uid_t owner;
        Caller caller;
        size_t n;
        int r;

        r = bus_args_read_pids(msg, FOREGROUND_MAX, &pids, &n, error);
        if (r < 0)
                return r;
        r = admit_source(m, msg, &caller, &owner, error);
        if (r >= 0)
                r = source_budget(m, &caller, owner, error);
        if (r < 0)
                return r;
        /* A thousand processes checked is work too: charged with the rest. */
        uint64_t start = clock_usec(CLOCK_THREAD_CPUTIME_ID);
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = source_process(m, &caller, owner, pids[i], &pids[i], error);
        if (r >= 0)
                r = relayed_set(m, kind, owner, sd_bus_message_get_sender(msg), pids, n);
        source_charge(m, owner, start);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

int focus_method_set_games(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return set_relayed(msg, userdata, RELAYED_GAMES, error);
}

int focus_method_set_audio(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return set_relayed(msg, userdata, RELAYED_AUDIO, error);
}

int focus_method_get_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_free_ pid_t *pids = NULL;
        sd_bus_message *reply = NULL;
        size_t n;
        int r = focus_list(m, &pids, &n);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'i', pids, n * sizeof *pids);
        if (r >= 0)
                r = sd_bus_message_append(reply, "b", focus_gate_engaged(m));
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

int focus_property(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                   void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        char buf[256];
        if (strcmp(prop, "ForegroundEvents") == 0)
                return sd_bus_message_append(reply, "t", focus_events(m));
        if (strcmp(prop, "ForegroundRefused") == 0)
                return sd_bus_message_append(reply, "t", focus_refused(m));
        if (strcmp(prop, "Games") == 0)
                return sd_bus_message_append(reply, "s", relayed_describe(m, RELAYED_GAMES, buf, sizeof buf));
        if (strcmp(prop, "Audio") == 0)
                return sd_bus_message_append(reply, "s", relayed_describe(m, RELAYED_AUDIO, buf, sizeof buf));
        return sd_bus_message_append(reply, "s", focus_describe(m, buf, sizeof buf));
}

static int on_name_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const char *name, *old, *new;
        if (sd_bus_message_read(msg, "sss", &name, &old, &new) >= 0 && name[0] == ':' && !*new)
                focus_connection_gone(userdata, name);
        return 0;
}

int focus_bus_start(Manager *m) {
        /* Asynchronous: sent ahead of RequestName, so in force before any
         * call can reach the name, and the loop never waits for the bus.
         * Floating: it goes with the connection. */
        int r = sd_bus_match_signal_async(m->bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, NULL, m);
        if (r < 0)
                return log_error_errno(r, "cannot watch bus connections: %m");
        return 0;
}
