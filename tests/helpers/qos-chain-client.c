/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loans and chains of locks through qosd, step by step, for
 * test-override-chain.sh. The process lends between its own threads by
 * calling qosd's bus methods itself (any thread of the caller's process
 * may be named as the waiter), so the test decides exactly which thread
 * "sleeps" on which lock. Lock addresses are made-up numbers: qosd only
 * keeps them.
 *
 *   qos-chain-client           the main thread is named lk-lender
 *   stdin, one command a line, one answer a line:
 *     self                          -> "TID"
 *     spawn NAME                    a new idle thread -> "TID"
 *     lock W O CLASS LOCK           BeginLockOverride -> "ID LENT [CHAIN-TID...]" or the error name
 *     plain W O CLASS               BeginOverride -> "ID LENT" or the error name
 *     end ID                        EndOverride -> "ended" or the error name
 *     set TID CLASS                 SetThreadClass -> "GRANTED" or the error name
 *     rename TID NAME               -> "renamed"
 *     quit
 */
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "core/bus-protocol.h"
#include "core/proc.h"

static sem_t started;

struct spawn_arg {
        char name[16];
        pid_t tid;
};

static void *idle_thread(void *p) {
        struct spawn_arg *a = p;
        prctl(PR_SET_NAME, a->name);
        a->tid = gettid();
        sem_post(&started);
        for (;;)
                pause();
        return NULL;
}

static uint64_t start_of(int tid) {
        uint64_t s = 0;
        (void) proc_start_time(tid, &s);
        return s;
}

static void answer_error(int r, const sd_bus_error *e) {
        printf("%s\n", sd_bus_error_is_set(e) ? e->name : strerror(-r));
}

static void cmd_lock(sd_bus *bus, int w, int o, const char *class, uint64_t lock) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        uint64_t id;
        const char *lent;
        const void *chain;
        size_t size;
        int r = sd_bus_call_method(bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                   QOS_BUS_METHOD_BEGIN_LOCK_OVERRIDE, &e, &reply,
                                   QOS_BUS_SIGNATURE_BEGIN_LOCK_OVERRIDE, (int32_t) w, start_of(w), (int32_t) o,
                                   start_of(o), class, lock);
        if (r >= 0)
                r = sd_bus_message_read(reply, "ts", &id, &lent);
        if (r >= 0)
                r = sd_bus_message_read_array(reply, 'i', &chain, &size);
        if (r < 0)
                answer_error(r, &e);
        else {
                printf("%" PRIu64 " %s", id, lent);
                for (size_t i = 0; i < size / sizeof(int32_t); i++)
                        printf(" %d", ((const int32_t *) chain)[i]);
                printf("\n");
        }
        sd_bus_message_unref(reply);
        sd_bus_error_free(&e);
}

static void cmd_plain(sd_bus *bus, int w, int o, const char *class) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        uint64_t id;
        const char *lent;
        int r = sd_bus_call_method(bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                   QOS_BUS_METHOD_BEGIN_OVERRIDE, &e, &reply, QOS_BUS_SIGNATURE_BEGIN_OVERRIDE,
                                   (int32_t) w, start_of(w), (int32_t) o, start_of(o), class);
        if (r >= 0)
                r = sd_bus_message_read(reply, "ts", &id, &lent);
        if (r < 0)
                answer_error(r, &e);
        else
                printf("%" PRIu64 " %s\n", id, lent);
        sd_bus_message_unref(reply);
        sd_bus_error_free(&e);
}

static void cmd_end(sd_bus *bus, uint64_t id) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = sd_bus_call_method(bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                   QOS_BUS_METHOD_END_OVERRIDE, &e, NULL, QOS_BUS_SIGNATURE_END_OVERRIDE, id);
        if (r < 0)
                answer_error(r, &e);
        else
                printf("ended\n");
        sd_bus_error_free(&e);
}

static void cmd_set(sd_bus *bus, int tid, const char *class) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *granted, *reason;
        int r = sd_bus_call_method(bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                   QOS_BUS_METHOD_SET_THREAD_CLASS, &e, &reply, QOS_BUS_SIGNATURE_SET_THREAD_CLASS,
                                   (int32_t) tid, start_of(tid), class, (int32_t) 0);
        if (r >= 0)
                r = sd_bus_message_read(reply, "ss", &granted, &reason);
        if (r < 0)
                answer_error(r, &e);
        else
                printf("%s\n", granted);
        sd_bus_message_unref(reply);
        sd_bus_error_free(&e);
}

static void cmd_rename(int tid, const char *name) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
        FILE *f = fopen(path, "w");
        bool ok = f && fputs(name, f) >= 0;
        if (f && fclose(f) != 0)
                ok = false;
        printf("%s\n", ok ? "renamed" : "rename failed");
}

int main(void) {
        sd_bus *bus = NULL;
        char line[256], a[64], b[64], c[64], d[64], e[64];

        prctl(PR_SET_NAME, "lk-lender");
        sem_init(&started, 0, 0);
        if (sd_bus_open_system(&bus) < 0) {
                printf("no bus\n");
                return 1;
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        while (fgets(line, sizeof line, stdin)) {
                int n = sscanf(line, "%63s %63s %63s %63s %63s", a, b, c, d, e);
                if (n >= 1 && strcmp(a, "self") == 0)
                        printf("%d\n", gettid());
                else if (n == 2 && strcmp(a, "spawn") == 0) {
                        struct spawn_arg *arg = calloc(1, sizeof *arg);
                        pthread_t t;
                        snprintf(arg->name, sizeof arg->name, "%.15s", b);
                        if (pthread_create(&t, NULL, idle_thread, arg) != 0) {
                                printf("spawn failed\n");
                                continue;
                        }
                        sem_wait(&started);
                        printf("%d\n", arg->tid);
                } else if (n == 5 && strcmp(a, "lock") == 0)
                        cmd_lock(bus, atoi(b), atoi(c), d, strtoull(e, NULL, 0));
                else if (n == 4 && strcmp(a, "plain") == 0)
                        cmd_plain(bus, atoi(b), atoi(c), d);
                else if (n == 2 && strcmp(a, "end") == 0)
                        cmd_end(bus, strtoull(b, NULL, 10));
                else if (n == 3 && strcmp(a, "set") == 0)
                        cmd_set(bus, atoi(b), c);
                else if (n == 3 && strcmp(a, "rename") == 0)
                        cmd_rename(atoi(b), c);
                else if (n >= 1 && strcmp(a, "quit") == 0)
                        break;
                else
                        printf("unknown command\n");
        }
        sd_bus_flush_close_unref(bus);
        return 0;
}
