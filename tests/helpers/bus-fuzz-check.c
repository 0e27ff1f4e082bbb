/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-fuzz-check.h"
#include "bus-fuzz-walk.h"

/* What qosd writes instead of what another user may not see (explain.h). */
#define HIDDEN "hidden: not your process"

static int violation(Checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int violation(Checker *c, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->evidence, sizeof c->evidence, fmt, ap);
        va_end(ap);
        return 1;
}

int check_alive(Checker *c, sd_bus *bus, const char *destination, const char *path) {
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd_bus_message_new_method_call(bus, &m, destination, path, "org.freedesktop.DBus.Peer", "Ping");
        if (r < 0)
                return r;
        r = sd_bus_call(bus, m, c->answer_usec, &error, &reply);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        r = r >= 0 ? 0 : violation(c, "qosd did not answer Ping within %.1f s: %s%s%s",
                                   (double) c->answer_usec / 1e6, error.name ?: strerror(-r),
                                   error.message ? ": " : "", error.message ?: "");
        sd_bus_error_free(&error);
        return r;
}

/* --- what a reply shows ---------------------------------------------------- */

static int marker_in_string(char type, const WalkValue *v, void *userdata) {
        Checker *c = userdata;
        char q[600];
        if ((type == 's' || type == 'o' || type == 'g') && strstr(v->s, c->marker)) {
                walk_quote(v->s, 500, q, sizeof q);
                violation(c, "a reply holds the marker \"%s\" (something only its owner may see): \"%s\"",
                          c->marker, q);
                return -EEXIST;
        }
        return 0;
}

static int check_marker(Checker *c, sd_bus_message *reply, const sd_bus_error *error) {
        static const WalkVisitor v = { .basic = marker_in_string };
        char q[600];
        if (!c->marker || !*c->marker)
                return 0;
        if (error && sd_bus_error_is_set(error)) {
                const char *parts[] = { error->name, error->message };
                for (size_t i = 0; i < 2; i++)
                        if (parts[i] && strstr(parts[i], c->marker)) {
                                walk_quote(parts[i], 500, q, sizeof q);
                                return violation(c, "an error holds the marker \"%s\": \"%s\"", c->marker, q);
                        }
                return 0;
        }
        if (!reply)
                return 0;
        int r = walk_message(reply, &v, c);
        return r == -EEXIST ? 1 : r < 0 ? r : 0;
}

/* 1 if tid's process is another user's, 0 if the caller's, <0 if gone. */
static int foreign(Checker *c, pid_t tid) {
        uid_t uid;
        int r = proc_real_uid(tid, &uid);
        return r < 0 ? r : uid != c->uid;
}

/* Knobs of another user's thread: a timer slack only as "hidden". */
static const char *slack_shown(const char *knobs) {
        for (const char *p = knobs; (p = strstr(p, "timer-slack=")); p++)
                if (strncmp(p + strlen("timer-slack="), "hidden", 6) != 0)
                        return p;
        return NULL;
}

static int check_list_tasks(Checker *c, sd_bus_message *reply) {
        int32_t pid, tid, last_pid = 0;
        const char *comm, *class, *state, *origin, *knobs;
        int last_foreign = 0, r;

        r = sd_bus_message_enter_container(reply, 'a', "(iisssss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(iisssss)", &pid, &tid, &comm, &class, &state, &origin,
                                                  &knobs)) > 0) {
                if (pid <= 0 || pid == c->pid)
                        continue; /* the truncation row; our own */
                if (pid != last_pid) {
                        last_pid = pid;
                        last_foreign = foreign(c, pid);
                }
                if (last_foreign > 0 && slack_shown(knobs))
                        return violation(c, "ListTasks shows the timer slack of pid %d tid %d (%s), another user's: %s",
                                         pid, tid, comm, knobs);
        }
        return r < 0 ? r : 0;
}

static int check_list_loans(Checker *c, sd_bus_message *reply) {
        int32_t t[4];
        uint64_t lock;
        const char *lent, *base, *lender;
        int r = sd_bus_message_enter_container(reply, 'a', "(iiiitsss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(iiiitsss)", &t[0], &t[1], &t[2], &t[3], &lock, &lent,
                                                  &base, &lender)) > 0)
                for (size_t i = 0; i < 4; i++)
                        if (t[i] > 0 && foreign(c, t[i]) > 0)
                                return violation(c, "ListLoans names %d, another user's (row: pid %d owner %d "
                                                 "lender %d via %d lock %#llx %s %s %s)", t[i], t[0], t[1], t[2],
                                                 t[3], (unsigned long long) lock, lent, base, lender);
        return r < 0 ? r : 0;
}

static bool hidden_key(const char *key) {
        static const char *const keys[] = { "command line", "cgroup", "group", "unit" };
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
                if (strcmp(key, keys[i]) == 0)
                        return true;
        return false;
}

static int check_explain(Checker *c, sd_bus_message *call, sd_bus_message *reply) {
        const char *key, *value;
        int32_t tid;
        int r = sd_bus_message_rewind(call, true);
        if (r >= 0)
                r = sd_bus_message_read(call, "i", &tid);
        if (r < 0)
                return r;
        if (tid <= 0 || foreign(c, tid) <= 0)
                return 0;
        r = sd_bus_message_enter_container(reply, 'a', "(ss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ss)", &key, &value)) > 0) {
                bool shown = (hidden_key(key) && strcmp(value, HIDDEN) != 0) ||
                             (strcmp(key, "process") == 0 && !strstr(value, "executable " HIDDEN)) ||
                             slack_shown(value);
                if (shown && foreign(c, tid) > 0) /* still another user's thread, not a reused TID */
                        return violation(c, "Explain(%d) of another user's thread shows \"%s\": \"%s\"", tid, key,
                                         value);
        }
        return r < 0 ? r : 0;
}

int check_reply(Checker *c, sd_bus_message *call, sd_bus_message *reply, const sd_bus_error *error) {
        int r = check_marker(c, reply, error);
        if (r != 0 || !reply || c->uid == 0)
                return r; /* root sees everything */
        const char *member = sd_bus_message_get_member(call), *sig = sd_bus_message_get_signature(reply, true);
        if (!member || !sig || strcmp(sd_bus_message_get_interface(call) ?: "", "org.qosd.QoS1.Manager") != 0)
                return 0;
        r = sd_bus_message_rewind(reply, true);
        if (r < 0)
                return r;
        if (strcmp(member, "ListTasks") == 0 && strcmp(sig, "a(iisssss)") == 0)
                return check_list_tasks(c, reply);
        if (strcmp(member, "ListLoans") == 0 && strcmp(sig, "a(iiiitsss)") == 0)
                return check_list_loans(c, reply);
        if (strcmp(member, "Explain") == 0 && strcmp(sig, "a(ss)") == 0 &&
            strcmp(sd_bus_message_get_signature(call, true) ?: "", "i") == 0)
                return check_explain(c, call, reply);
        return 0;
}

/* --- what the kernel reports ----------------------------------------------- */

static void comm_of(pid_t tid, char buf[static 32]) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/comm", (int) tid);
        FILE *f = fopen(path, "re");
        if (!f || !fgets(buf, 32, f))
                strcpy(buf, "?");
        buf[strcspn(buf, "\n")] = 0;
        if (f)
                fclose(f);
}

static int check_own(Checker *c) {
        pid_t *tids;
        size_t n;
        int r = proc_own_tasks(&tids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && r == 0; i++) {
                Triple t;
                char a[TRIPLE_STRING_MAX], b[TRIPLE_STRING_MAX], comm[32];
                if (proc_triple(tids[i], &t) < 0)
                        continue; /* a thread of ours that has just ended */
                if (!c->has_highest || triple_above(&t, &c->highest)) {
                        c->highest = t;
                        c->has_highest = true;
                }
                if (c->has_ceiling && triple_above(&t, &c->ceiling)) {
                        comm_of(tids[i], comm);
                        r = violation(c, "the caller's thread %d (%s) is at \"%s\" (policy nice slice), above its "
                                      "ceiling \"%s\"", (int) tids[i], comm, triple_format(&t, a),
                                      triple_format(&c->ceiling, b));
                }
                /* The class's share against other applications is its group's. */
                for (size_t g = 0; g < c->n_groups_above && r == 0; g++)
                        if (proc_in_cgroup(tids[i], c->groups_above[g]) > 0) {
                                comm_of(tids[i], comm);
                                r = violation(c, "the caller's thread %d (%s) is in the cgroup %s, a class above its "
                                              "ceiling", (int) tids[i], comm, c->groups_above[g]);
                        }
        }
        free(tids);
        return r;
}

int check_kernel(Checker *c) {
        int r = c->has_ceiling || c->n_groups_above ? check_own(c) : 0;
        for (size_t i = 0; i < c->n_victims && r == 0; i++) {
                const Victim *v = &c->victims[i];
                Triple t;
                char a[TRIPLE_STRING_MAX], b[TRIPLE_STRING_MAX], comm[32];
                if (!v->has_view)
                        continue;
                if (proc_triple(v->tid, &t) < 0)
                        return violation(c, "the victim thread %d is gone", (int) v->tid);
                if (!triple_equal(&t, &v->view)) {
                        comm_of(v->tid, comm);
                        return violation(c, "the victim thread %d (%s) is at \"%s\" (policy nice slice), it was at "
                                         "\"%s\"", (int) v->tid, comm, triple_format(&t, a),
                                         triple_format(&v->view, b));
                }
        }
        return r;
}
