/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How the loader reaches files and directories: with open(2), or, for a
 * user's rules, through a hook of the caller's (RuleSources.open_user)
 * that keeps to the user's home (qosd: tree-open.h). Every open of a
 * scope goes through its opener, so the loader never follows a path the
 * hook would refuse. */
#pragma once

#include <dirent.h>

typedef struct FileOpener {
        /* An fd for path opened with flags (O_CLOEXEC included), or a
         * negative errno; -EXDEV: refused, the path leads out of where
         * the files may come from. */
        int (*open)(const char *path, int flags, void *userdata);
        void *userdata;
} FileOpener;

/* Through o's hook; with o NULL (or no hook) open(2). fd or negative errno. */
int file_open(const FileOpener *o, const char *path, int flags);

/* The directory path, to list; 0 and *ret, or a negative errno. */
int file_opendir(const FileOpener *o, const char *path, DIR **ret);

/* What error means in a message about a file: strerror(), and for -EXDEV
 * that the link was not followed. The same words whether the link's
 * target exists or not. */
const char *file_error_string(int error);
