/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "file-read.h"
#include "macro.h"

int read_text_file(const char *path, size_t max, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, size = 0;

        if (fd < 0)
                return negative_errno();
        for (;;) {
                if (len + 1 >= size) {
                        if (size > max)
                                return -EFBIG;
                        size_t n = size ? size * 2 : 4096;
                        char *b = realloc(buf, n);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        size = n;
                }
                ssize_t k = read(fd, buf + len, size - 1 - len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                len += (size_t) k;
                if (len > max)
                        return -EFBIG;
        }
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int read_rule_file(const char *path, char **ret, size_t *ret_len, DiagList *diag) {
        int r = read_text_file(path, RULE_FILE_MAX, ret, ret_len);
        if (r >= 0)
                return 1;
        if (r == -ENOMEM)
                return r;
        r = diag_add(diag, LOG_ERR, path, 0, "cannot read: %s; file skipped",
                     r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
        return r < 0 ? r : 0;
}
