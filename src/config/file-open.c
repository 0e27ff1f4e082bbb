/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "config/file-open.h"
#include "core/macro.h"

int file_open(const FileOpener *o, const char *path, int flags) {
        if (o && o->open)
                return o->open(path, flags | O_CLOEXEC, o->userdata);
        int fd = open(path, flags | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

int file_opendir(const FileOpener *o, const char *path, DIR **ret) {
        _cleanup_close_ int fd = file_open(o, path, O_RDONLY | O_DIRECTORY);
        if (fd < 0)
                return fd;
        DIR *d = fdopendir(fd);
        if (!d)
                return negative_errno();
        TAKE_FD(fd); /* the DIR's now */
        *ret = d;
        return 0;
}

const char *file_error_string(int error) {
        if (error == -EXDEV)
                return "a symbolic link out of the owner's home directory, not followed";
        return strerror(-error);
}
