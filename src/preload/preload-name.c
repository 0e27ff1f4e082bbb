/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Renames: pthread_setname_np() and prctl(PR_SET_NAME). The kernel takes
 * the name first, then the thread gets the class of its new name before
 * the call returns. */
#include <errno.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "preload/preload.h"
#include "lib/thread-id.h"

__attribute__((visibility("default"))) int pthread_setname_np(pthread_t thread, const char *name) {
        pthread_setname_np_fn next = real_pthread_setname_np();
        pid_t tid;
        int r;

        if (!next)
                return ENOSYS;
        r = next(thread, name);
        if (r != 0 || !preload_active())
                return r;
        if (pthread_equal(thread, pthread_self()))
                preload_apply(gettid(), true, PRELOAD_RENAME);
        else if (thread_id_from_pthread(thread, &tid) >= 0)
                preload_apply(tid, false, PRELOAD_RENAME);
        return r;
}

/* prctl() is variadic; the kernel reads four more arguments whatever the
 * option, and so does libc's own prctl(). */
__attribute__((visibility("default"))) int prctl(int option, ...) {
        prctl_fn next = real_prctl();
        unsigned long a[4];
        va_list ap;
        int r;

        va_start(ap, option);
        for (int i = 0; i < 4; i++)
                a[i] = va_arg(ap, unsigned long);
        va_end(ap);
        if (!next) {
                errno = ENOSYS;
                return -1;
        }
        r = next(option, a[0], a[1], a[2], a[3]);
        if (option == PR_SET_NAME && r == 0 && preload_active())
                preload_apply(gettid(), true, PRELOAD_RENAME);
        return r;
}
