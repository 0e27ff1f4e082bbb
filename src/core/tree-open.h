/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Opening a path inside one directory tree (a user's home) so that nothing
 * outside it is ever looked up: symbolic links are followed only while
 * they stay in the tree, and never a /proc magic link (/proc/PID/cwd,
 * /proc/PID/root, /proc/PID/fd/N), whatever the caller's privileges. A
 * link that would lead out is refused before its target is looked at, so
 * the refusal says nothing about whether the target exists.
 *
 * The links are resolved here one component at a time, and the file is
 * then opened by the kernel with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) below the tree's fd: a
 * link swapped in meanwhile makes that open fail, it cannot lead out. */
#pragma once

/* path (absolute) relative to root: the part after "root/", "" for root
 * itself; NULL when path is not below root. Trailing slashes of root do
 * not count ("/" is the whole file system). */
const char *tree_relative(const char *root, const char *path);

/* Open path (absolute, below root) with flags (O_CLOEXEC is added; not
 * O_CREAT), root_fd being root opened as a directory (O_PATH will do).
 * A link is followed when its target stays in the tree: a relative one
 * whose ".." do not climb above root, an absolute one that names a path
 * below root as root spells it. The fd, or a negative errno: -EXDEV when
 * path or a link on the way leads out of the tree (not followed), -ELOOP
 * after 40 links, what openat2() says otherwise (-ENOSYS before Linux
 * 5.6). */
int tree_open(int root_fd, const char *root, const char *path, int flags);

/* The rule for a user's rule files, for every reader of them (qosd as the
 * user, qosctl check, the preload): path below root with tree_open(),
 * root itself opened here through ordinary links but no magic one; path
 * elsewhere (root NULL: anywhere) with open(2). fd or negative errno. */
int tree_open_path(const char *root, const char *path, int flags);
