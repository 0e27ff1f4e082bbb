/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Acting on files as a user while running as root: the file-system uid and
 * gid of the calling thread (setfsuid/setfsgid), which the kernel checks
 * for every path lookup, open and connect(), and no effective capability
 * at all until it comes back: not only the file ones (CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH, CAP_FOWNER, which leaving fsuid 0 drops by itself)
 * but CAP_SYS_PTRACE too, with which a user's link through another user's
 * /proc/PID/cwd would open. The permitted set stays, so that leaving can
 * take them back. Needs CAP_SETUID and CAP_SETGID. */
#pragma once

#include <sys/types.h>

/* Take uid and gid and empty the effective set; -EPERM if the kernel kept
 * the old ids (setfsuid never fails loudly, so it is asked again), or the
 * error of capset. On failure nothing has changed. Not nested. */
int fs_identity_enter(uid_t uid, gid_t gid);

/* Back to root's ids and the effective set before fs_identity_enter(). */
void fs_identity_leave(void);
