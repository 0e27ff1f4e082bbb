/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A bus connection whose PID is a lie, to test that qosd does not believe
 * it: the parent connect()s to the bus socket (so the bus records the
 * parent's PID, SO_PEERCRED), forks, and the child authenticates and says
 * Hello on that socket. The parent prints its PID and waits for "exit";
 * after it has exited, its PID can be given to another process, and the
 * child's calls still carry the parent's PID.
 *
 *   qos-bus-orphan SOCKET_PATH
 *   stdin:  exit                        the parent exits (child answers "parent-gone")
 *           call TID START CLASS        SetThreadClass -> "granted-class reason" or the error name
 *           quit
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bus-protocol.h"

static int call(sd_bus *bus, int tid, unsigned long long start, const char *class, int relpri,
                sd_bus_error *error, sd_bus_message **reply) {
        return sd_bus_call_method(bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                                  QOS_BUS_METHOD_SET_THREAD_CLASS, error, reply,
                                  QOS_BUS_SIGNATURE_SET_THREAD_CLASS, (int32_t) tid, (uint64_t) start,
                                  class, (int32_t) relpri);
}

static int serve(int fd, int ready) {
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
        bool orphan = argc == 3 && strcmp(argv[1], "--orphan") == 0;
        const char *path = argv[argc - 1];
        if ((argc != 2 && !orphan) || strlen(path) >= sizeof sa.sun_path) {
                fprintf(stderr, "usage: qos-bus-caller [--orphan] SOCKET_PATH\n");
                return 2;
        }
        strcpy(sa.sun_path, path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                perror("qos-bus-caller: connect");
                return 1;
        }
        printf("%d\n", (int) getpid());
        fflush(stdout);
        if (!orphan)
                return serve(fd, -1);
        int p[2];
        if (pipe(p) < 0)
                return 1;
        pid_t c = fork();
        if (c < 0)
                return 1;
        if (c == 0) {
                close(p[0]);
                /* Its own session: a process group named after the parent
                 * would keep the parent's PID in use. */
                setsid();
                return serve(fd, p[1]);
        }
        close(fd);
        close(p[1]);
        char ch;
        return read(p[0], &ch, 1) == 1 ? 0 : 1; /* exit once the child has its name */
}
