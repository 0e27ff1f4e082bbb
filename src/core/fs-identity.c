/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sys/fsuid.h>

#include "fs-identity.h"

int fs_identity_enter(uid_t uid, gid_t gid) {
        setfsgid(gid);
        setfsuid(uid);
        if ((uid_t) setfsuid((uid_t) -1) != uid || (gid_t) setfsgid((gid_t) -1) != gid) {
                fs_identity_leave();
                return -EPERM;
        }
        return 0;
}

void fs_identity_leave(void) {
        setfsuid(0);
        setfsgid(0);
}
