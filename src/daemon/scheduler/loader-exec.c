/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scheduler/loader-exec.h"
#include "core/macro.h"

int loader_open(const char *path, char *why, size_t why_size) {
        _cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0) {
                int r = negative_errno();
                snprintf(why, why_size, "cannot open it: %s", strerror(-r));
                return r;
        }
        if (!S_ISREG(st.st_mode))
                snprintf(why, why_size, "not a regular file");
        else if (st.st_uid != 0)
                snprintf(why, why_size, "owned by uid %u, not root", (unsigned) st.st_uid);
        else if (st.st_mode & (S_IWGRP | S_IWOTH))
                snprintf(why, why_size, "writable by its group or others (mode %04o)",
                         (unsigned) (st.st_mode & 07777));
        else if (!(st.st_mode & S_IXUSR))
                snprintf(why, why_size, "not executable (mode %04o)", (unsigned) (st.st_mode & 07777));
        else
                return TAKE_FD(fd);
        return -EPERM;
}

/* Between fork and exec: async-signal-safe calls only. */
_Noreturn static void child(int exec_fd, char *const *argv, int out, int err, pid_t parent) {
        sigset_t none;
        int null;

        /* The loader holds the scheduler; an orphan would keep it after
         * qosd is gone. The check after closes the race with a parent that
         * died before the prctl. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
                _exit(127);
        /* qosd blocks the signals it reads through signalfd; exec keeps
         * both the mask and ignored signals. */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
            dup2(err, STDERR_FILENO) < 0)
                _exit(127);
        /* A script's interpreter opens it through /dev/fd/N, which must
         * survive the exec; an ELF loader just inherits an O_PATH fd. */
        (void) fcntl(exec_fd, F_SETFD, 0);
        fexecve(exec_fd, argv, environ);
        dprintf(STDERR_FILENO, "cannot execute %s: %m\n", argv[0]);
        _exit(127);
}

int loader_spawn(int exec_fd, const char *path, const char *const *args, LoaderChild *ret) {
        const char *argv[LOADER_ARGS_MAX + 2] = { path };
        int out[2], err[2];
        pid_t parent = getpid(), pid;
        size_t n = 1;

        /* Built before the fork: the child may only exec. */
        for (; args && args[n - 1]; n++) {
                if (n > LOADER_ARGS_MAX)
                        return -E2BIG;
                argv[n] = args[n - 1];
        }

        if (pipe2(out, O_CLOEXEC) < 0)
                return negative_errno();
        if (pipe2(err, O_CLOEXEC) < 0) {
                int r = negative_errno();
                close(out[0]);
                close(out[1]);
                return r;
        }
        pid = fork();
        if (pid == 0)
                child(exec_fd, (char *const *) argv, out[1], err[1], parent);
        int r = pid < 0 ? negative_errno() : 0;
        close(out[1]);
        close(err[1]);
        if (r < 0) {
                close(out[0]);
                close(err[0]);
                return r;
        }
        /* Only qosd's ends: the loader's writes may block on a full pipe
         * (qosd reads as the loop wakes), qosd's reads must not. */
        (void) fcntl(out[0], F_SETFL, O_NONBLOCK);
        (void) fcntl(err[0], F_SETFL, O_NONBLOCK);
        *ret = (LoaderChild) { .pid = pid, .out_fd = out[0], .err_fd = err[0] };
        return 0;
}
