/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/macro.h"
#include "state/runtime-dir.h"

#define TMP_SUFFIX ".tmp"

static int say(int r, char *why, size_t size, const char *fmt, ...) _printf_(4, 5);
static int say(int r, char *why, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, size, fmt, ap);
        va_end(ap);
        return r;
}

static int mkdir_parents(const char *dir) {
        _cleanup_free_ char *p = strdup(dir);
        if (!p)
                return -ENOMEM;
        for (char *s = p + 1;; s++) {
                char c = *s;
                if (c != '/' && c != '\0')
                        continue;
                *s = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                *s = c;
                if (c == '\0')
                        return 0;
        }
}

int runtime_dir_open(const char *dir, bool create, char *why, size_t size) {
        struct stat st;
        int r;

        if (create && (r = mkdir_parents(dir)) < 0)
                return say(r, why, size, "cannot create %s: %s", dir, strerror(-r));
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = negative_errno();
                if (r == -ENOTDIR || r == -ELOOP)
                        return say(-EPERM, why, size, "%s is not a directory (a symbolic link?)", dir);
                return say(r, why, size, "cannot open %s: %s", dir, strerror(-r));
        }
        if (fstat(fd, &st) < 0)
                return say(negative_errno(), why, size, "cannot inspect %s: %m", dir);
        if (st.st_uid != geteuid())
                return say(-EPERM, why, size, "%s belongs to uid %u, not to qosd's uid %u", dir,
                           (unsigned) st.st_uid, (unsigned) geteuid());
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return say(-EPERM, why, size, "%s is writable by its group or by everyone (mode %04o)", dir,
                           (unsigned) (st.st_mode & 07777));
        return TAKE_FD(fd);
}

int runtime_path_split(const char *path, char **ret_dir, char **ret_name) {
        const char *slash = strrchr(path, '/');
        if (!slash || !slash[1])
                return -EINVAL;
        _cleanup_free_ char *dir = slash == path ? strdup("/") : strndup(path, (size_t) (slash - path));
        _cleanup_free_ char *name = strdup(slash + 1);
        if (!dir || !name)
                return -ENOMEM;
        *ret_dir = TAKE_PTR(dir);
        *ret_name = TAKE_PTR(name);
        return 0;
}

int runtime_path_open(const char *path, bool create, char **ret_name, char *why, size_t size) {
        _cleanup_free_ char *dir = NULL, *name = NULL;
        int r = runtime_path_split(path, &dir, &name);
        if (r < 0)
                return say(r, why, size, "%s is not a file's path", path);
        int fd = runtime_dir_open(dir, create, why, size);
        if (fd >= 0)
                *ret_name = TAKE_PTR(name);
        return fd;
}

static int check_stat(const struct stat *st, const char *name, char *why, size_t size) {
        if (S_ISLNK(st->st_mode))
                return say(-ELOOP, why, size, "%s is a symbolic link", name);
        if (!S_ISREG(st->st_mode))
                return say(-EINVAL, why, size, "%s is not a regular file", name);
        if (st->st_uid != geteuid())
                return say(-EPERM, why, size, "%s belongs to uid %u, not to qosd's uid %u", name,
                           (unsigned) st->st_uid, (unsigned) geteuid());
        return 0;
}

int runtime_file_check(int dirfd, const char *name, char *why, size_t size) {
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : say(negative_errno(), why, size, "cannot inspect %s: %m", name);
        return check_stat(&st, name, why, size);
}

static int open_checked(int dirfd, const char *name, int flags, char *why, size_t size) {
        struct stat st;
        _cleanup_close_ int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0) {
                int r = negative_errno();
                if (r == -ELOOP)
                        return say(r, why, size, "%s is a symbolic link", name);
                return say(r, why, size, "cannot open %s: %s", name, strerror(-r));
        }
        if (fstat(fd, &st) < 0)
                return say(negative_errno(), why, size, "cannot inspect %s: %m", name);
        int r = check_stat(&st, name, why, size);
        return r < 0 ? r : TAKE_FD(fd);
}

int runtime_file_open_read(int dirfd, const char *name, char *why, size_t size) {
        /* O_NONBLOCK: a FIFO put there must not stop qosd in open(). */
        return open_checked(dirfd, name, O_RDONLY | O_NONBLOCK, why, size);
}

int runtime_file_open_append(int dirfd, const char *name, char *why, size_t size) {
        return open_checked(dirfd, name, O_WRONLY | O_CREAT | O_APPEND, why, size);
}

FILE *runtime_path_fopen_read(const char *path, char *why, size_t size, int *ret) {
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int dirfd = runtime_path_open(path, false, &name, why, size);
        if (dirfd < 0) {
                *ret = dirfd;
                return NULL;
        }
        int fd = runtime_file_open_read(dirfd, name, why, size);
        if (fd < 0) {
                *ret = fd;
                return NULL;
        }
        FILE *f = fdopen(fd, "re");
        if (!f) {
                *ret = negative_errno();
                close(fd);
                return NULL;
        }
        *ret = 0;
        return f;
}

static char *tmp_name(const char *name) {
        char *s;
        return asprintf(&s, "%s" TMP_SUFFIX, name) < 0 ? NULL : s;
}

int runtime_file_new(int dirfd, const char *name, char *why, size_t size) {
        _cleanup_free_ char *tmp = tmp_name(name);
        if (!tmp)
                return -ENOMEM;
        /* A leftover of a crash in the middle of a rewrite. */
        if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
                return say(negative_errno(), why, size, "cannot remove %s: %m", tmp);
        return open_checked(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, why, size);
}

int runtime_file_commit(int dirfd, const char *name, char *why, size_t size) {
        _cleanup_free_ char *tmp = tmp_name(name);
        if (!tmp)
                return -ENOMEM;
        /* No fsync: the records describe running tasks, which do not outlive
         * the machine; what they guard against is qosd's own death, and the
         * page cache outlives that. */
        if (renameat(dirfd, tmp, dirfd, name) < 0) {
                int r = negative_errno();
                (void) unlinkat(dirfd, tmp, 0);
                return say(r, why, size, "cannot rename %s to %s: %s", tmp, name, strerror(-r));
        }
        return 0;
}

void runtime_file_discard(int dirfd, const char *name) {
        _cleanup_free_ char *tmp = tmp_name(name);
        if (tmp)
                (void) unlinkat(dirfd, tmp, 0);
}

void runtime_retry_arm(sd_event *event, sd_event_source **retry, sd_event_time_handler_t handler,
                       void *userdata) {
        if (!*retry)
                (void) sd_event_add_time_relative(event, retry, CLOCK_MONOTONIC, RUNTIME_RETRY_USEC, 0, handler,
                                                  userdata);
        else if (sd_event_source_set_time_relative(*retry, RUNTIME_RETRY_USEC) >= 0)
                (void) sd_event_source_set_enabled(*retry, SD_EVENT_ONESHOT);
}
