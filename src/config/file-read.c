/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "config/file-read.h"
#include "core/macro.h"

/* A rule file belongs to whoever wrote it, and a user's may be swapped for
 * a FIFO or a symlink to a terminal between listing and open. O_NONBLOCK
 * makes such an open return at once (a FIFO without a writer would block
 * it for good), O_NOCTTY keeps a terminal from becoming the reader's
 * controlling one, and only a regular file, checked on the open fd, is
 * read. A regular file cannot block a read, and the read stops at max. */
int read_text_file(const char *path, size_t max, char **ret, size_t *ret_len) {
        return read_text_file_via(NULL, path, max, ret, ret_len);
}

int read_text_file_via(const FileOpener *o, const char *path, size_t max, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = file_open(o, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, size = 0;
        struct stat st;

        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if ((uint64_t) st.st_size > max)
                return -EFBIG;
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
        return read_rule_file_report(path, r, diag);
}

int read_rule_file_report(const char *path, int error, DiagList *diag) {
        if (error == -ENOMEM)
                return error;
        int r = diag_add(diag, LOG_ERR, path, 0, "cannot read: %s; file skipped",
                         error == -EFBIG    ? "larger than 1 MiB"
                         : error == -EBADFD ? "not a regular file"
                                            : file_error_string(error));
        return r < 0 ? r : 0;
}
