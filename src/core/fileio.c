/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/fileio.h"
#include "core/macro.h"

/* The path may lie in a cgroup a user owns: an open must never wait. */
int read_small_file(const char *path, char *buf, size_t size, size_t *ret_len) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        return read_small_fd(fd, buf, size, ret_len);
}

int read_small_fd(int fd, char *buf, size_t size, size_t *ret_len) {
        size_t len = 0;

        while (len < size - 1) {
                ssize_t n = read(fd, buf + len, size - 1 - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        buf[len] = '\0';
        if (ret_len)
                *ret_len = len;
        return 0;
}

int write_small_file(const char *path, const char *s) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        size_t len = strlen(s);
        ssize_t n;

        if (fd < 0)
                return negative_errno();
        do
                n = write(fd, s, len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        return (size_t) n == len ? 0 : -EIO;
}
