/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fork storm for the daemon tests and benchmark: N short-lived processes
 * as fast as fork() goes, and optionally K of them that exec a program and
 * stay (the "live matched tasks" an audit checks afterwards).
 *
 *   qos-fork-storm N [K PROGRAM ARGS...]
 *
 * Prints "survivor PID" per survivor, then "done" when all N have been created and
 * the short-lived ones reaped; then waits until killed (survivors are its
 * children and die with a SIGTERM to the process group or one by one).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
        if (argc < 2) {
                fprintf(stderr, "usage: qos-fork-storm N [K PROGRAM ARGS...]\n");
                return 2;
        }
        long n = strtol(argv[1], NULL, 10);
        long k = argc >= 4 ? strtol(argv[2], NULL, 10) : 0;
        long every = k > 0 ? n / k : 0, reaped = 0, forked = 0, survivors = 0;

        for (long i = 0; i < n; i++) {
                /* Exactly K, also where N is no multiple of K. */
                bool survivor = every && i % every == 0 && survivors < k;
                pid_t pid = fork();
                if (pid < 0) {
                        if (errno == EAGAIN) { /* at the process limit: reap and retry */
                                if (waitpid(-1, NULL, 0) > 0)
                                        reaped++;
                                i--;
                                continue;
                        }
                        perror("fork");
                        return 1;
                }
                if (pid == 0) {
                        if (survivor) {
                                /* Our stdout is the caller's list of survivors. */
                                int fd = open("/dev/null", O_WRONLY);
                                if (fd >= 0)
                                        dup2(fd, STDOUT_FILENO);
                                execv(argv[3], argv + 3);
                                _exit(127);
                        }
                        _exit(0);
                }
                forked++;
                if (survivor) {
                        survivors++;
                        printf("survivor %d\n", (int) pid);
                        fflush(stdout);
                }
                while (waitpid(-1, NULL, WNOHANG) > 0)
                        reaped++;
        }
        /* Reap everything but the survivors (they do not exit). */
        while (reaped < forked - k && waitpid(-1, NULL, 0) > 0)
                reaped++;
        printf("done\n");
        fflush(stdout);
        for (;;)
                pause();
}
