/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/class-request.h"
#include "cli/cli.h"
#include "core/bus-protocol.h"
#include "core/macro.h"
#include "core/proc.h"
#include "core/task-attr.h"
#include "core/term-escape.h"

/* qosd answers in microseconds; this long means it is stuck. */
#define CALL_TIMEOUT_USEC (5 * 1000000ULL)
/* A rate-limited request is asked again after a pause, this many times
 * (qosd refills a process's bucket at RequestRate=, 20 a second). */
#define RATE_PAUSE_NSEC (100 * 1000000L)
#define RATE_TRIES 100

int class_request_open(ClassRequester *q, const char *command) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int has = 0;

        *q = (ClassRequester) { .command = command };
        if (sd_bus_open_system(&q->bus) < 0) {
                q->bus = NULL; /* no system bus, so no qosd on it */
                return 0;
        }
        (void) sd_bus_set_method_call_timeout(q->bus, CALL_TIMEOUT_USEC);
        if (sd_bus_call_method(q->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", &error, &reply, "s", QOS_BUS_NAME) < 0 ||
            sd_bus_message_read(reply, "b", &has) < 0 || !has) {
                class_request_close(q);
                return 0;
        }
        return 1;
}

void class_request_close(ClassRequester *q) {
        q->bus = sd_bus_flush_close_unref(q->bus);
}

const char *cli_thread_subject(pid_t tid, char *buf, size_t size) {
        char comm[PROC_COMM_MAX] = "?";
        pid_t pid = tid;
        (void) proc_tgid(tid, &pid);
        (void) proc_comm(pid, tid, comm);
        _cleanup_free_ char *name = term_escape(comm); /* the thread names itself */
        if (pid == tid)
                snprintf(buf, size, "pid %d (%s)", (int) tid, name ?: "?");
        else
                snprintf(buf, size, "thread %d (%s) of pid %d", (int) tid, name ?: "?", (int) pid);
        return buf;
}

const char *class_answer_format(const ClassAnswer *a, char *buf, size_t size) {
        if (a->granted == a->asked)
                snprintf(buf, size, "%s (granted)", qclass_to_string(a->granted));
        else if (strncmp(a->reason, "held at ", strlen("held at ")) == 0)
                snprintf(buf, size, "%s %s", qclass_to_string(a->asked), a->reason);
        else
                snprintf(buf, size, "%s held at %s (%s)", qclass_to_string(a->asked),
                         qclass_to_string(a->granted), a->reason);
        return buf;
}

static int call(ClassRequester *q, pid_t tid, uint64_t start, QClass c, sd_bus_error *error,
                sd_bus_message **reply) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r = sd_bus_message_new_method_call(q->bus, &m, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                               QOS_BUS_METHOD_SET_THREAD_CLASS);
        /* A qosd that is not running is not started for this: the knobs
         * are then set directly. */
        if (r >= 0)
                r = sd_bus_message_set_auto_start(m, false);
        if (r >= 0)
                r = sd_bus_message_append(m, QOS_BUS_SIGNATURE_SET_THREAD_CLASS, (int32_t) tid, start,
                                          qclass_to_string(c), (int32_t) 0);
        if (r >= 0)
                r = sd_bus_call(q->bus, m, 0, error, reply);
        return r;
}

/* Why qosd refused, without the words that only repeat it. */
static const char *refusal(const char *message) {
        const char *p = message && *message ? message : "no reason given";
        if (strncmp(p, "Not allowed: ", strlen("Not allowed: ")) == 0)
                p += strlen("Not allowed: ");
        return p;
}

/* A thread of one's own in another process: qosd lets a program raise
 * only its own threads, and qosctl run starts a command as its own. */
static bool own_other_process(pid_t tid) {
        uid_t uid;
        pid_t pid;
        return getuid() != 0 && proc_tgid(tid, &pid) >= 0 && pid != getpid() && proc_uid(pid, &uid) >= 0 &&
               uid == getuid();
}

/* One line for a failed call, and the exit code. */
static int report(const ClassRequester *q, const char *who, pid_t tid, QClass c, const sd_bus_error *error, int r,
                  bool vanished_ok, ClassAnswer *ret) {
        _cleanup_free_ char *message = term_escape(error->message ?: strerror(-r));
        if (!message)
                return EXIT_FAIL;
        size_t len = strlen(message);
        if (len > 0 && message[len - 1] == '.')
                message[len - 1] = '\0'; /* qosd ends its sentences; the line goes on */

        if (sd_bus_error_has_name(error, QOS_BUS_ERROR_NO_SUCH_TASK)) {
                ret->granted = QCLASS_UNSPECIFIED;
                if (vanished_ok)
                        return EXIT_OK;
                fprintf(stderr, "qosctl %s: no such process or thread: %d\n", q->command, (int) tid);
                return EXIT_NOTFOUND;
        }
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                fprintf(stderr, "qosctl %s: qosd stopped while it was asked (systemctl status qosd)\n", q->command);
                return EXIT_NODAEMON;
        }
        if (r == -ETIMEDOUT || sd_bus_error_has_names(error, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT)) {
                fprintf(stderr, "qosctl %s: qosd did not answer within %llu s (systemctl status qosd)\n",
                        q->command, CALL_TIMEOUT_USEC / 1000000ULL);
                return EXIT_NODAEMON;
        }
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED)) {
                fprintf(stderr, "qosctl %s: %s: refused by qosd: %s", q->command, who, refusal(message));
                if (own_other_process(tid) && c != QCLASS_BACKGROUND)
                        fprintf(stderr, " (a program may raise only its own threads: start the command with "
                                "'qosctl run -c %s')", qclass_to_string(c));
                fputc('\n', stderr);
                return EXIT_DENIED;
        }
        if (sd_bus_error_has_name(error, QOS_BUS_ERROR_REALTIME)) {
                fprintf(stderr, "qosctl %s: %s is real-time or deadline scheduled; qosd leaves such threads "
                        "alone (change it with chrt first)\n", q->command, who);
                return EXIT_FAIL;
        }
        fprintf(stderr, "qosctl %s: %s: %s\n", q->command, who, message);
        return sd_bus_error_has_name(error, SD_BUS_ERROR_INVALID_ARGS) ? EXIT_USAGE : EXIT_FAIL;
}

static int read_answer(const ClassRequester *q, sd_bus_message *reply, ClassAnswer *ret) {
        const char *granted, *reason;
        if (sd_bus_message_read(reply, "ss", &granted, &reason) < 0)
                goto malformed;
        /* qosd may grant less than asked, never more. */
        int g = qclass_from_string(granted);
        if (g < 0 || !qclass_is_valid(g) || g > (int) ret->asked)
                goto malformed;
        _cleanup_free_ char *shown = term_escape(reason); /* may name a rule file */
        if (!shown)
                return EXIT_FAIL;
        ret->granted = (QClass) g;
        snprintf(ret->reason, sizeof ret->reason, "%s", shown);
        return EXIT_OK;
malformed:
        fprintf(stderr, "qosctl %s: malformed reply from qosd\n", q->command);
        return EXIT_FAIL;
}

static void print_changes(pid_t tid, const TaskAttr *before) {
        char comm[PROC_COMM_MAX] = "?";
        ApplyResult res = { .before = *before };
        if (task_attr_read(tid, &res.after) < 0)
                return;
        res.changed = task_attr_diff(&res.before, &res.after, KNOBS_ALL);
        (void) proc_comm(0, tid, comm);
        cli_print_changes(tid, comm, &res);
}

int class_request_thread(ClassRequester *q, pid_t tid, QClass c, bool verbose, bool vanished_ok,
                         ClassAnswer *ret) {
        char who[128];
        uint64_t start;
        TaskAttr before;
        int r;

        *ret = (ClassAnswer) { .asked = c };
        /* The start time goes with the TID, so that qosd acts on this thread
         * and not on one that got the TID after it exited. */
        if (proc_start_time(tid, &start) < 0) {
                if (vanished_ok)
                        return EXIT_OK;
                fprintf(stderr, "qosctl %s: no such process or thread: %d\n", q->command, (int) tid);
                return EXIT_NOTFOUND;
        }
        cli_thread_subject(tid, who, sizeof who);
        bool have_before = verbose && task_attr_read(tid, &before) >= 0;

        for (unsigned tries = 1;; tries++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                r = call(q, tid, start, c, &error, &reply);
                if (r >= 0) {
                        r = read_answer(q, reply, ret);
                        break;
                }
                /* qosd's rate limit is per process: -a on a process with
                 * many threads waits for it rather than fail. */
                if (sd_bus_error_has_name(&error, QOS_BUS_ERROR_RATE_LIMITED) && tries < RATE_TRIES) {
                        nanosleep(&(struct timespec) { .tv_nsec = RATE_PAUSE_NSEC }, NULL);
                        continue;
                }
                return report(q, who, tid, c, &error, r, vanished_ok, ret);
        }
        if (r == EXIT_OK && have_before)
                print_changes(tid, &before);
        return r;
}
