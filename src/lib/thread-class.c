/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The public calls on existing threads: the calling thread, a TID, a
 * pthread_t, and the main thread's initial class. */
#include <errno.h>
#include <unistd.h>

#include "lib/class-map.h"
#include "core/class-relpri.h"
#include "core/kernel-caps.h"
#include "qos/qos.h"
#include "core/sched-syscall.h"
#include "lib/thread-apply.h"
#include "lib/thread-id.h"

static int set_class(pid_t tid, bool self, qos_class_t qos_class, int relative_priority) {
        QClass c;
        int r = class_request_from_apple(qos_class, relative_priority, &c);
        if (r < 0)
                return r;
        return thread_apply_class(tid, self, c, relative_priority);
}

static int get_class(pid_t tid, qos_class_t *qos_class, int *relative_priority) {
        QClass c;
        int relpri;
        int r = thread_read_class(tid, &c, &relpri);
        if (r < 0)
                return r;
        if (qos_class)
                *qos_class = class_to_apple(c);
        if (relative_priority)
                *relative_priority = relpri;
        return 0;
}

int qos_self_set_class(qos_class_t qos_class, int relative_priority) {
        return set_class(gettid(), true, qos_class, relative_priority);
}

int qos_self_get_class(qos_class_t *qos_class, int *relative_priority) {
        return get_class(gettid(), qos_class, relative_priority);
}

qos_class_t qos_class_self(void) {
        qos_class_t c;
        return qos_self_get_class(&c, NULL) < 0 ? QOS_CLASS_UNSPECIFIED : c;
}

int qos_thread_set_class(pid_t tid, qos_class_t qos_class, int relative_priority) {
        int r = thread_id_check_own(tid);
        if (r < 0)
                return r;
        return set_class(tid, tid == gettid(), qos_class, relative_priority);
}

int qos_thread_get_class(pid_t tid, qos_class_t *qos_class, int *relative_priority) {
        int r = thread_id_check_own(tid);
        if (r < 0)
                return r;
        return get_class(tid, qos_class, relative_priority);
}

int qos_pthread_set_class(pthread_t thread, qos_class_t qos_class, int relative_priority) {
        pid_t tid;
        int r = thread_id_from_pthread(thread, &tid);
        if (r < 0)
                return r;
        return qos_thread_set_class(tid, qos_class, relative_priority);
}

int qos_pthread_get_class(pthread_t thread, qos_class_t *qos_class, int *relative_priority) {
        pid_t tid;
        int r = thread_id_from_pthread(thread, &tid);
        if (r < 0)
                return r;
        return qos_thread_get_class(tid, qos_class, relative_priority);
}

/* The main thread's scheduler settings when libqos was loaded: one system
 * call here, and the mapping to a class later, when qos_class_main() is
 * first asked (mapping needs the probed kernel caps, and probing starts a
 * thread, which a library constructor must not do). */
static struct qos_sched_attr main_attr;
static int main_attr_error = -ENODATA;

__attribute__((constructor)) static void record_main_thread(void) {
        main_attr_error = sys_sched_getattr(getpid(), &main_attr);
}

qos_class_t qos_class_main(void) {
        TaskAttr a;
        if (main_attr_error < 0)
                return QOS_CLASS_UNSPECIFIED;
        task_attr_from_sched_attr(&main_attr, kernel_caps(), &a);
        return class_to_apple(class_from_attr_relpri(&a, kernel_caps(), NULL));
}
