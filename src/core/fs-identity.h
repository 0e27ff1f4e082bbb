/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Acting on files as a user while running as root: the file-system uid and
 * gid of the calling thread (setfsuid/setfsgid), which the kernel checks
 * for every path lookup, open and connect(). Leaving fsuid 0 also drops
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the effective set until it
 * comes back. Needs CAP_SETUID and CAP_SETGID. */
#pragma once

#include <sys/types.h>

/* Take uid and gid; -EPERM if the kernel kept the old ones (setfsuid never
 * fails loudly, so it is asked again). */
int fs_identity_enter(uid_t uid, gid_t gid);

/* Back to root's. */
void fs_identity_leave(void);
