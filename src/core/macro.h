/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers every file may use: ownership by cleanup attribute, array sizes. */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p) {
        free(*(void **) p);
}
static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

/* funcp() for _cleanup_(funcp), where func(p) frees what p points to and
 * takes NULL: declared beside the type, e.g.
 * DEFINE_TRIVIAL_CLEANUP_FUNC(RuleSet *, ruleset_free) gives ruleset_freep. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
        static inline void func##p(type *p) {   \
                (void) func(*p);                \
        }

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)

/* Hand an owned pointer or fd out of a cleanup scope. */
#define TAKE_PTR(p) ({ __typeof__(p) _t = (p); (p) = NULL; _t; })
#define TAKE_FD(fd) ({ int _t = (fd); (fd) = -1; _t; })

/* errno as a negative return value, never 0 even if errno was clobbered. */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}
