/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "caller/caller-identity.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/proc.h"

#define CREDS_TIMEOUT_USEC (1000 * 1000)

typedef struct Peer {
        uint64_t birth;         /* ticks when its name appeared */
        bool known;             /* pid and uid fetched from the bus */
        pid_t pid;
        uid_t uid;
} Peer;

uint64_t caller_ticks_now(void) {
        struct timespec ts;
        long hz = sysconf(_SC_CLK_TCK);
        clock_gettime(CLOCK_BOOTTIME, &ts); /* /proc's start times are on this clock */
        return (uint64_t) ts.tv_sec * (uint64_t) hz + (uint64_t) ts.tv_nsec / (1000000000ULL / (uint64_t) hz);
}

/* ":1.42" -> 42; dbus-daemon and dbus-broker number connections this way. */
static pid_t serial_of(const char *name) {
        const char *dot = name && name[0] == ':' ? strchr(name, '.') : NULL;
        char *end;
        if (!dot || !dot[1])
                return 0;
        errno = 0;
        long n = strtol(dot + 1, &end, 10);
        if (errno || *end || n <= 0 || n > INT32_MAX)
                return 0;
        return (pid_t) n;
}

static void peer_drop(CallerBook *b, pid_t serial) {
        free(pid_map_remove(&b->peers, serial));
}

static int on_name_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        CallerBook *b = userdata;
        const char *name, *old, *new;
        if (sd_bus_message_read(msg, "sss", &name, &old, &new) < 0 || name[0] != ':')
                return 0;
        pid_t serial = serial_of(name);
        if (serial == 0)
                return 0;
        peer_drop(b, serial);
        if (!*new)
                return 0; /* gone */
        Peer *p = calloc(1, sizeof *p);
        if (!p)
                return 0; /* then its calls are judged by the conservative bound */
        p->birth = caller_ticks_now();
        if (pid_map_put(&b->peers, serial, p) < 0)
                free(p);
        return 0;
}

int caller_book_start(CallerBook *b, sd_bus *bus) {
        b->since = caller_ticks_now();
        /* Asynchronous: sent ahead of RequestName, so in force before any
         * call can reach the name, and the loop never waits for the bus. */
        int r = sd_bus_match_signal_async(bus, &b->slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, NULL, b);
        if (r < 0)
                return log_error_errno(r, "cannot watch bus connections: %m");
        return 0;
}

void caller_book_free(CallerBook *b) {
        size_t i = 0;
        void *v;
        while (pid_map_next(&b->peers, &i, NULL, &v))
                free(v);
        pid_map_clear(&b->peers);
        b->slot = sd_bus_slot_unref(b->slot);
}

/* The sender's credentials, asked of the bus (dbus-daemon and dbus-broker
 * attach none to messages): one round trip that qosd waits for, serving
 * nothing else meanwhile. A bus answers it at once unless it is stuck, so
 * qosd waits CREDS_TIMEOUT_USEC at most (not the bus's 5 s for the other
 * calls), and after a timeout refuses new senders at once for as long
 * again (b: the book that remembers it, or NULL), rather than waiting once
 * for each call that queued up meanwhile. */
static int query_creds(CallerBook *b, sd_bus_message *msg, uint64_t mask, sd_bus_creds **ret) {
        sd_bus *bus = sd_bus_message_get_bus(msg);
        uint64_t saved = 0, now = clock_usec(CLOCK_MONOTONIC);
        if (b && now < b->stalled_until)
                return -ETIMEDOUT;
        if (sd_bus_get_method_call_timeout(bus, &saved) < 0)
                saved = 0;
        (void) sd_bus_set_method_call_timeout(bus, CREDS_TIMEOUT_USEC);
        int r = sd_bus_query_sender_creds(msg, mask, ret);
        (void) sd_bus_set_method_call_timeout(bus, saved); /* 0: sd-bus's default again */
        if (r == -ETIMEDOUT && b) {
                b->stalled_until = clock_usec(CLOCK_MONOTONIC) + CREDS_TIMEOUT_USEC;
                log_warning("the bus did not say within %d ms who sent a call; callers it has not identified "
                            "yet are refused for as long", (int) (CREDS_TIMEOUT_USEC / 1000));
        }
        return r;
}

static int fetch_creds(CallerBook *b, sd_bus_message *msg, pid_t *ret_pid, uid_t *ret_uid) {
        sd_bus_creds *creds = NULL;
        int r = query_creds(b, msg, SD_BUS_CREDS_PID | SD_BUS_CREDS_EUID, &creds);
        if (r >= 0)
                r = sd_bus_creds_get_pid(creds, ret_pid);
        if (r >= 0)
                r = sd_bus_creds_get_euid(creds, ret_uid);
        sd_bus_creds_unref(creds);
        return r;
}

/* The process's user namespace is qosd's own: capabilities count only in
 * the namespace they belong to. */
static bool same_user_namespace(pid_t pid) {
        char path[64];
        struct stat mine, theirs;
        snprintf(path, sizeof path, "/proc/%d/ns/user", (int) pid);
        if (stat("/proc/self/ns/user", &mine) < 0)
                /* A kernel without CONFIG_USER_NS has no such file and one
                 * user namespace, which every process is in. */
                return errno == ENOENT && access("/proc/self/ns", F_OK) == 0 && stat(path, &theirs) < 0 &&
                       errno == ENOENT;
        return stat(path, &theirs) == 0 && mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino;
}

static bool has_sys_nice(const Caller *c) {
        uint64_t caps;
        if (c->uid != 0)
                return false; /* connected as a user: never, whatever it holds now */
        if (proc_cap_effective(c->pid, &caps) < 0 || !(caps & (UINT64_C(1) << CAP_SYS_NICE)))
                return false;
        /* What was read belongs to the caller only if its PID still does. */
        return same_user_namespace(c->pid) && caller_recheck(c) == 0;
}

int caller_identify(CallerBook *b, sd_bus_message *msg, Caller *ret) {
        pid_t serial = serial_of(sd_bus_message_get_sender(msg));
        Peer *p = serial ? pid_map_get(&b->peers, serial) : NULL;
        /* A connection qosd did not see appear is older than qosd's watch. */
        uint64_t bound = p ? p->birth : b->since;
        Caller c = {};
        int r;

        if (p && p->known) {
                /* The bus's answer never changes for one connection. */
                c.pid = p->pid;
                c.uid = p->uid;
        } else {
                r = fetch_creds(b, msg, &c.pid, &c.uid);
                if (r < 0)
                        return r;
                if (p) {
                        p->pid = c.pid;
                        p->uid = c.uid;
                        p->known = true;
                }
        }
        r = proc_start_time(c.pid, &c.start_time);
        if (r < 0)
                return -ESRCH;
        log_debug("caller %s: pid %d started %" PRIu64 ", connection seen %" PRIu64 "%s",
                  sd_bus_message_get_sender(msg) ?: "?", (int) c.pid, c.start_time, bound,
                  p ? "" : " (before qosd watched)");
        if (c.start_time > bound) {
                log_debug("caller %s: PID %d started after the connection appeared: a reused PID",
                          sd_bus_message_get_sender(msg) ?: "?", (int) c.pid);
                return -ESRCH;
        }
        pid_t inner;
        unsigned depth;
        if (proc_ns_tid(0, c.pid, &inner, &depth) < 0)
                return -ESRCH;
        c.nested = depth > 1;
        c.privileged = has_sys_nice(&c);
        *ret = c;
        return 0;
}

int caller_recheck(const Caller *c) {
        uint64_t start;
        if (proc_start_time(c->pid, &start) < 0 || start != c->start_time)
                return -ESRCH;
        return 0;
}

int caller_in_group(sd_bus_message *msg, gid_t gid) {
        sd_bus_creds *creds = NULL;
        const gid_t *gids;
        gid_t egid;
        int r = query_creds(NULL, msg, SD_BUS_CREDS_EGID | SD_BUS_CREDS_SUPPLEMENTARY_GIDS, &creds);
        bool in = false;
        if (r >= 0 && sd_bus_creds_get_egid(creds, &egid) >= 0 && egid == gid)
                in = true;
        if (r >= 0 && !in) {
                int n = sd_bus_creds_get_supplementary_gids(creds, &gids);
                for (int i = 0; i < n && !in; i++)
                        in = gids[i] == gid;
        }
        sd_bus_creds_unref(creds);
        return in;
}

int caller_identify_or_refuse(CallerBook *b, sd_bus_message *msg, Caller *ret, sd_bus_error *error) {
        int r = caller_identify(b, msg, ret);
        if (r == -ESRCH)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                        "Cannot identify the caller: it exited, or its PID was reused.");
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Cannot identify the caller: %s",
                                         strerror(-r));
        return 0;
}

int caller_require_privileged(CallerBook *b, sd_bus_message *msg, sd_bus_error *error) {
        Caller caller;
        int r = caller_identify_or_refuse(b, msg, &caller, error);
        if (r < 0)
                return r;
        if (!caller.privileged)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                        "Only root with CAP_SYS_NICE may do this.");
        return 0;
}
