/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A bus connection whose PID is a lie, to test that qosd does not believe
 * it: the parent connect()s to the bus socket (so the bus records the
 * parent's PID, SO_PEERCRED), forks, and the child authenticates and says
 * Hello on that socket. The parent prints its PID and exits once the child
 * has its name; after that, its PID can be given to another process, and
 * the child's calls still carry the parent's PID. With --hold the parent
 * also runs a second thread and stays until the child is told "release",
 * so the child can lend between the parent's threads first.
 *
 *   qos-bus-caller [--orphan [--hold]] SOCKET_PATH
 *   first line:  PID (--hold: PID TID, the second thread's)
 *   stdin:  call TID START CLASS RELPRI          SetThreadClass -> "granted reason" or the error name
 *           flood N TID START CLASS              N SetThreadClass calls -> "ok A limited B other C"
 *           begin WAITER WSTART OWNER OSTART CLASS  BeginOverride -> "ID LENT" or the error name
 *           end ID                               EndOverride -> "ended" or the error name
 *           spawn N                              N more threads of this process -> "threads N LAST-TID"
 *           retire                               the last spawned thread exits -> "retired TID"
 *           lend CLASS                           BeginOverride from the main thread to every
 *                                                spawned thread -> "ok A limited B other C: LAST ERROR"
 *           release                              (--hold) the parent exits -> "released"
 *           quit
 */
#include <pthread.h>
#include <semaphore.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "core/bus-protocol.h"
#include "core/proc.h"

static int call(sd_bus *bus, int tid, unsigned long long start, const char *class, int relpri,
                sd_bus_error *error, sd_bus_message **reply) {
        return sd_bus_call_method(bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                  QOS_BUS_METHOD_SET_THREAD_CLASS, error, reply,
                                  QOS_BUS_SIGNATURE_SET_THREAD_CLASS, (int32_t) tid, (uint64_t) start,
                                  class, (int32_t) relpri);
}

static int begin(sd_bus *bus, int waiter, uint64_t wstart, int owner, uint64_t ostart, const char *class,
                 sd_bus_error *error, uint64_t *ret_id, const char **ret_lent, sd_bus_message **reply) {
        int r = sd_bus_call_method(bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                   QOS_BUS_METHOD_BEGIN_OVERRIDE, error, reply, QOS_BUS_SIGNATURE_BEGIN_OVERRIDE,
                                   (int32_t) waiter, wstart, (int32_t) owner, ostart, class);
        if (r >= 0)
                r = sd_bus_message_read(*reply, "ts", ret_id, ret_lent);
        return r;
}

/* Threads that only wait, for overrides to land on. */
#define THREADS_MAX 4096
static pid_t threads[THREADS_MAX];
static pthread_t handles[THREADS_MAX];
static int n_threads;
static sem_t started;

static void *idle_thread(void *arg) {
        *(pid_t *) arg = gettid();
        sem_post(&started);
        for (;;)
                pause();
        return NULL;
}

static int spawn(int n) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        for (int i = 0; i < n && n_threads < THREADS_MAX; i++) {
                if (pthread_create(&handles[n_threads], &attr, idle_thread, &threads[n_threads]) != 0)
                        break;
                sem_wait(&started);
                n_threads++;
        }
        pthread_attr_destroy(&attr);
        return n_threads;
}

/* The last spawned thread ends (pause() is a cancellation point) and is
 * joined: its TID is free for the kernel to give to another task. */
static pid_t retire(void) {
        if (n_threads == 0)
                return 0;
        n_threads--;
        pthread_cancel(handles[n_threads]);
        pthread_join(handles[n_threads], NULL);
        return threads[n_threads];
}

/* One override from the main thread to each spawned thread. */
static void lend(sd_bus *bus, const char *class) {
        int ok = 0, limited = 0, other = 0;
        uint64_t mstart, start;
        char last[512] = "-";
        if (proc_start_time(getpid(), &mstart) < 0)
                mstart = 0;
        for (int i = 0; i < n_threads; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = NULL;
                const char *lent;
                uint64_t id;
                if (proc_start_time(threads[i], &start) < 0)
                        start = 0;
                int r = begin(bus, getpid(), mstart, threads[i], start, class, &error, &id, &lent, &reply);
                if (r >= 0)
                        ok++;
                else {
                        if (sd_bus_error_has_name(&error, SD_BUS_ERROR_LIMITS_EXCEEDED))
                                limited++;
                        else
                                other++;
                        snprintf(last, sizeof last, "%s %s", error.name ?: strerror(-r), error.message ?: "");
                }
                sd_bus_error_free(&error);
                sd_bus_message_unref(reply);
        }
        printf("ok %d limited %d other %d: %s\n", ok, limited, other, last);
}

static void override_command(sd_bus *bus, const char *line) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        unsigned long long wstart, ostart, id;
        int waiter, owner, r;
        char class[64];
        const char *lent;
        if (sscanf(line, "begin %d %llu %d %llu %63s", &waiter, &wstart, &owner, &ostart, class) == 5) {
                uint64_t got;
                r = begin(bus, waiter, wstart, owner, ostart, class, &error, &got, &lent, &reply);
                if (r < 0)
                        printf("%s\n", error.name ?: strerror(-r));
                else
                        printf("%" PRIu64 " %s\n", got, lent);
        } else if (sscanf(line, "end %llu", &id) == 1) {
                r = sd_bus_call_method(bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                       QOS_BUS_METHOD_END_OVERRIDE, &error, &reply, QOS_BUS_SIGNATURE_END_OVERRIDE,
                                       (uint64_t) id);
                printf("%s\n", r < 0 ? error.name ?: strerror(-r) : "ended");
        } else
                printf("usage\n");
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
}

static int serve(int fd, int ready, int release) {
        sd_bus *bus = NULL;
        char line[256];
        int r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_fd(bus, fd, fd);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        const char *name;
        if (r >= 0)
                r = sd_bus_get_unique_name(bus, &name); /* waits for Hello's answer */
        if (r < 0) {
                fprintf(stderr, "qos-bus-orphan: cannot start the bus: %s\n", strerror(-r));
                return 1;
        }
        if (ready >= 0) {
                (void) !write(ready, "x", 1);
                close(ready);
        }
        printf("named %d\n", (int) getpid());
        fflush(stdout);
        while (fgets(line, sizeof line, stdin)) {
                int tid;
                unsigned long long start;
                char class[64];
                int relpri, n;
                if (sscanf(line, "call %d %llu %63s %d", &tid, &start, class, &relpri) == 4) {
                        sd_bus_error error = SD_BUS_ERROR_NULL;
                        sd_bus_message *reply = NULL;
                        const char *granted, *reason;
                        r = call(bus, tid, start, class, relpri, &error, &reply);
                        if (r < 0)
                                printf("%s\n", error.name ?: strerror(-r));
                        else if (sd_bus_message_read(reply, "ss", &granted, &reason) > 0)
                                printf("%s %s\n", granted, reason);
                        sd_bus_error_free(&error);
                        sd_bus_message_unref(reply);
                } else if (sscanf(line, "flood %d %d %llu %63s", &n, &tid, &start, class) == 4) {
                        int ok = 0, limited = 0, other = 0;
                        for (int i = 0; i < n; i++) {
                                sd_bus_error error = SD_BUS_ERROR_NULL;
                                sd_bus_message *reply = NULL;
                                r = call(bus, tid, start, class, 0, &error, &reply);
                                if (r >= 0)
                                        ok++;
                                else if (sd_bus_error_has_name(&error, QOS_BUS_ERROR_RATE_LIMITED))
                                        limited++;
                                else
                                        other++;
                                sd_bus_error_free(&error);
                                sd_bus_message_unref(reply);
                        }
                        printf("ok %d limited %d other %d\n", ok, limited, other);
                } else if (strncmp(line, "begin ", 6) == 0 || strncmp(line, "end ", 4) == 0)
                        override_command(bus, line);
                else if (sscanf(line, "spawn %d", &n) == 1) {
                        n = spawn(n);
                        printf("threads %d %d\n", n, n ? (int) threads[n - 1] : 0);
                }
                else if (strncmp(line, "retire", 6) == 0)
                        printf("retired %d\n", (int) retire());
                else if (sscanf(line, "lend %63s", class) == 1)
                        lend(bus, class);
                else if (strncmp(line, "release", 7) == 0 && release >= 0) {
                        close(release);
                        release = -1;
                        printf("released\n");
                } else if (strncmp(line, "quit", 4) == 0)
                        break;
                else
                        printf("usage\n");
                fflush(stdout);
        }
        sd_bus_flush_close_unref(bus);
        return 0;
}

int main(int argc, char **argv) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        bool orphan = argc >= 3 && strcmp(argv[1], "--orphan") == 0;
        bool hold = orphan && argc == 4 && strcmp(argv[2], "--hold") == 0;
        const char *path = argv[argc - 1];
        if ((argc != 2 && !(orphan && argc == 3) && !hold) || strlen(path) >= sizeof sa.sun_path) {
                fprintf(stderr, "usage: qos-bus-caller [--orphan [--hold]] SOCKET_PATH\n");
                return 2;
        }
        strcpy(sa.sun_path, path);
        sem_init(&started, 0, 0);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                perror("qos-bus-caller: connect");
                return 1;
        }
        if (hold && spawn(1) != 1)
                return 1;
        if (hold)
                printf("%d %d\n", (int) getpid(), (int) threads[0]);
        else
                printf("%d\n", (int) getpid());
        fflush(stdout);
        if (!orphan)
                return serve(fd, -1, -1);
        int p[2], rel[2];
        if (pipe(p) < 0 || pipe(rel) < 0)
                return 1;
        pid_t c = fork();
        if (c < 0)
                return 1;
        if (c == 0) {
                close(p[0]);
                close(rel[0]);
                /* Its own session: a process group named after the parent
                 * would keep the parent's PID in use. */
                setsid();
                return serve(fd, p[1], hold ? rel[1] : -1);
        }
        close(fd);
        close(p[1]);
        close(rel[1]);
        char ch;
        if (read(p[0], &ch, 1) != 1)
                return 1;
        /* Exit once the child has its name, or (--hold) once it lets go. */
        if (hold)
                (void) !read(rel[0], &ch, 1);
        return 0;
}
