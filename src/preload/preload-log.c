/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Diagnostics only when asked: a preloaded program's output is its own.
 * One write(2) per line, formatted on the stack: no stdio lock, no
 * allocation, usable from any wrapper. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/preload.h"

static bool enabled;
static char path[PATH_MAX]; /* empty: stderr */

void preload_log_init(void) {
        /* secure_getenv: a setuid program (if it kept the preload at all)
         * must not append to a file its caller names. */
        const char *v = secure_getenv("QOS_PRELOAD_DEBUG");
        if (!v || !*v || strcmp(v, "0") == 0)
                return;
        if (v[0] == '/' && strlen(v) < sizeof path)
                memcpy(path, v, strlen(v) + 1);
        enabled = true;
}

bool preload_log_enabled(void) {
        return enabled;
}

void preload_log(const char *fmt, ...) {
        char buf[1024];
        int saved = errno, n, m;
        va_list ap;

        if (!enabled)
                return;
        n = snprintf(buf, sizeof buf, "qos-preload[%d]: ", (int) getpid());
        va_start(ap, fmt);
        m = vsnprintf(buf + n, sizeof buf - (size_t) n - 1, fmt, ap);
        va_end(ap);
        if (m < 0)
                m = 0;
        n += m;
        if ((size_t) n > sizeof buf - 2)
                n = (int) sizeof buf - 2;
        buf[n++] = '\n';

        /* Raw system calls: this runs inside the program's own
         * pthread_mutex_lock(), which a sanitizer runtime may have
         * intercepted first; its file-descriptor interceptors must not
         * run again from within that one (ThreadSanitizer crashed so). */
        long fd = path[0] ? syscall(SYS_openat, AT_FDCWD, path,
                                    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644)
                          : STDERR_FILENO;
        if (fd >= 0) {
                (void) syscall(SYS_write, fd, buf, (size_t) n);
                if (fd != STDERR_FILENO)
                        (void) syscall(SYS_close, fd);
        }
        errno = saved;
}

const char *preload_event_to_string(PreloadEvent ev) {
        static const char *const names[] = {
                [PRELOAD_EXEC] = "exec",
                [PRELOAD_START] = "start",
                [PRELOAD_RENAME] = "rename",
                [PRELOAD_FORK] = "fork",
        };
        return ev < ELEMENTSOF(names) ? names[ev] : "?";
}
