/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Starting a program qosd runs as root (the sched_ext loader): the file is
 * opened once, checked through that descriptor, and the same descriptor is
 * executed, so what was checked is what runs even if the path is renamed
 * over in between. No event loop here: bpf-scheduler.c watches the child. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Open path (O_PATH) and check that it is a regular, executable file that
 * root owns and neither its group nor others may write. Returns the
 * descriptor, or a negative errno with why in why (for the log):
 * -EPERM for a file that fails the checks. */
int loader_open(const char *path, char *why, size_t why_size);

typedef struct LoaderChild {
        pid_t pid;
        int out_fd, err_fd;     /* the read ends of its stdout and stderr, non-blocking */
} LoaderChild;

/* Fork and execute exec_fd (from loader_open) with argv[0] = path and
 * then args (NULL-terminated, at most LOADER_ARGS_MAX; NULL: none), stdin
 * from /dev/null, stdout and stderr into pipes, no signal blocked, and
 * SIGTERM when qosd dies. */
#define LOADER_ARGS_MAX 8
int loader_spawn(int exec_fd, const char *path, const char *const *args, LoaderChild *ret);
