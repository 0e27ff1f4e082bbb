/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lending through qosd, for programs without CAP_SYS_NICE: libqos.so's own
 * qos_override_begin_from()/qos_override_end(), which call qosd's
 * BeginOverride and EndOverride (qosd checks both threads are the caller's
 * and lends at most the lender's own class).
 *
 * libqos.so, and the libsystemd it brings, are loaded at the first loan
 * that needs them, not with the preload: most preloaded programs never
 * contend across classes, and a D-Bus library loaded into every one of
 * them is what the preload avoids (it hung gst-launch-1.0 under ASan).
 * The load happens in a thread that is about to sleep on a mutex anyway.
 * Its one hazard is the dynamic loader's lock: a thread inside dlopen()
 * whose constructors wait on a mutex this thread holds would wait for us
 * while we wait for the loader - a program that does that while contending
 * across classes can set QOS_PRELOAD_LEND=0. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "lib/class-map.h"
#include "preload/preload.h"

typedef int (*override_begin_fn)(pid_t, pid_t, qos_class_t, qos_override_t **);
typedef int (*override_end_fn)(qos_override_t *);

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static override_begin_fn begin_fn;
static override_end_fn end_fn;

static void load_libqos(void) {
        /* secure_getenv: a setuid program must not load a library its
         * caller names. Tests point it at the build's libqos.so. */
        const char *path = secure_getenv("QOS_PRELOAD_LIBQOS");
        if (!path || path[0] != '/')
                path = "libqos.so.0";
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                preload_log("lending through qosd: off, %s", dlerror());
                return;
        }
        override_begin_fn b = (override_begin_fn) dlsym(h, "qos_override_begin_from");
        override_end_fn e = (override_end_fn) dlsym(h, "qos_override_end");
        if (!b || !e) {
                preload_log("lending through qosd: off, %s lacks the override calls", path);
                return;
        }
        begin_fn = b;
        end_fn = e;
        preload_log("lending through qosd: %s loaded", path);
}

int preload_broker_begin(pid_t lender, pid_t tid, QClass c, qos_override_t **ret) {
        (void) pthread_once(&load_once, load_libqos);
        if (!begin_fn)
                return -EOPNOTSUPP;
        return begin_fn(lender, tid, class_to_apple(c), ret);
}

int preload_broker_end(qos_override_t *o) {
        return end_fn ? end_fn(o) : -EOPNOTSUPP;
}
