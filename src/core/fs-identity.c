/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fs-identity.h"

/* The effective set this thread had before fs_identity_enter(): the one
 * to go back to. Per thread, like the fs identity and the sets. */
static __thread uint32_t saved_effective[_LINUX_CAPABILITY_U32S_3];

static int caps_get(struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        return syscall(SYS_capget, &h, data) < 0 ? -errno : 0;
}

/* Set this thread's effective set to effective; the permitted and
 * inheritable sets stay. A set within the permitted one always takes. */
static int caps_set_effective(const uint32_t effective[_LINUX_CAPABILITY_U32S_3]) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
        int r = caps_get(data);
        if (r < 0)
                return r;
        for (size_t i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
                data[i].effective = effective[i];
        return syscall(SYS_capset, &h, data) < 0 ? -errno : 0;
}

static bool fs_ids_are(uid_t uid, gid_t gid) {
        return (uid_t) setfsuid((uid_t) -1) == uid && (gid_t) setfsgid((gid_t) -1) == gid;
}

int fs_identity_enter(uid_t uid, gid_t gid) {
        static const uint32_t none[_LINUX_CAPABILITY_U32S_3] = {};
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
        int r = caps_get(data);
        if (r < 0)
                return r;
        for (size_t i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
                saved_effective[i] = data[i].effective;

        setfsgid(gid);
        setfsuid(uid);
        if (!fs_ids_are(uid, gid)) {
                fs_identity_leave();
                return -EPERM;
        }
        /* Leaving fsuid 0 takes only the file capabilities away; the
         * others would still open what the user cannot: CAP_SYS_PTRACE
         * another user's /proc/PID/cwd and everything below it. */
        r = caps_set_effective(none);
        if (r < 0) {
                fs_identity_leave();
                return r;
        }
        return 0;
}

void fs_identity_leave(void) {
        /* First the capabilities: setfsuid(0) needs CAP_SETUID. */
        (void) caps_set_effective(saved_effective);
        setfsuid(0);
        setfsgid(0);
}
