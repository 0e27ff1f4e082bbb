/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Run a program under a chosen PID, to force PID reuse in the tests:
 *
 *   qos-spawn-at-pid PID PROGRAM ARGS...
 *
 * clone3() with set_tid (Linux 5.5+, needs CAP_CHECKPOINT_RESTORE or
 * CAP_SYS_ADMIN) creates the child with exactly that PID if it is free;
 * the child execs PROGRAM, the parent waits and exits with its status.
 * Exit 75 (EX_TEMPFAIL) if the PID is taken.
 */
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
        if (argc < 3) {
                fprintf(stderr, "usage: qos-spawn-at-pid PID PROGRAM ARGS...\n");
                return 2;
        }
        pid_t want = (pid_t) strtol(argv[1], NULL, 10);
        struct clone_args args = {
                .exit_signal = SIGCHLD,
                .set_tid = (uint64_t) (uintptr_t) &want,
                .set_tid_size = 1,
        };
        long pid = syscall(SYS_clone3, &args, sizeof args);
        if (pid < 0) {
                fprintf(stderr, "qos-spawn-at-pid: clone3(set_tid=%d): %s\n", (int) want, strerror(errno));
                return errno == EEXIST ? 75 : 1;
        }
        if (pid == 0) {
                execv(argv[2], argv + 2);
                _exit(127);
        }
        int status;
        if (waitpid((pid_t) pid, &status, 0) < 0)
                return 1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
