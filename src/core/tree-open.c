/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/macro.h"
#include "core/tree-open.h"

/* The kernel's own limit on links in one lookup (MAXSYMLINKS). */
#define TREE_MAX_LINKS 40

/* Every lookup below the tree: no "..", no absolute path, no link at all
 * (this file resolves them), no magic link. */
#define TREE_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/* Where openat2 is refused (ENOSYS: a seccomp filter that predates it,
 * as systemd 252's units have), the same walk by hand: rel holds no "."
 * or ".." (tree_open takes them out), and no component is followed if it
 * is a link, the last one included. */
static int open_below_by_hand(int root_fd, const char *rel, int flags) {
        char buf[PATH_MAX], *save = NULL;
        _cleanup_close_ int dir = -EBADF;

        if (!*rel) {
                int fd = openat(root_fd, ".", flags | O_CLOEXEC);
                return fd < 0 ? negative_errno() : fd;
        }
        if (snprintf(buf, sizeof buf, "%s", rel) >= (int) sizeof buf)
                return -ENAMETOOLONG;
        for (char *c = strtok_r(buf, "/", &save), *next; c; c = next) {
                next = strtok_r(NULL, "/", &save);
                if (strcmp(c, "..") == 0 || strcmp(c, ".") == 0)
                        return -EXDEV;
                int fd = openat(dir >= 0 ? dir : root_fd, c,
                                (next ? O_PATH | O_DIRECTORY : flags) | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return negative_errno();
                if (!next)
                        return fd;
                if (dir >= 0)
                        close(dir);
                dir = fd;
        }
        return -ENOENT;
}

static int open_below(int root_fd, const char *rel, int flags) {
        struct open_how how = { .flags = (uint64_t) (flags | O_CLOEXEC), .resolve = TREE_RESOLVE };
        long fd = syscall(SYS_openat2, root_fd, *rel ? rel : ".", &how, sizeof how);
        if (fd < 0 && errno == ENOSYS)
                return open_below_by_hand(root_fd, rel, flags);
        return fd < 0 ? negative_errno() : (int) fd;
}

const char *tree_relative(const char *root, const char *path) {
        size_t n = strlen(root);
        while (n > 0 && root[n - 1] == '/')
                n--;
        if (path[0] != '/' || strncmp(path, root, n) != 0 || (path[n] != '/' && path[n] != '\0'))
                return NULL;
        return path + n + strspn(path + n, "/");
}

/* The target of the link at rel, as a path relative to the tree (into
 * buf): a relative target as it is (*absolute false), an absolute one with
 * root taken off. -EXDEV for an absolute target outside the tree. */
static int link_target(int root_fd, const char *root, const char *rel, char *buf, size_t size,
                       const char **ret, bool *absolute) {
        _cleanup_close_ int fd = open_below(root_fd, rel, O_PATH | O_NOFOLLOW);
        if (fd < 0)
                return fd;
        ssize_t n = readlinkat(fd, "", buf, size);
        if (n < 0)
                return negative_errno();
        if ((size_t) n >= size)
                return -ENAMETOOLONG;
        buf[n] = '\0';
        *absolute = buf[0] == '/';
        *ret = *absolute ? tree_relative(root, buf) : buf;
        return *ret ? 0 : -EXDEV;
}

/* Whether rel (no links in it) is a link itself: 1, 0, or a negative errno. */
static int is_link(int root_fd, const char *rel) {
        _cleanup_close_ int fd = open_below(root_fd, rel, O_PATH | O_NOFOLLOW);
        struct stat st;
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        return S_ISLNK(st.st_mode);
}

int tree_open_path(const char *root, const char *path, int flags) {
        if (root && tree_relative(root, path)) {
                struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                                        .resolve = RESOLVE_NO_MAGICLINKS };
                _cleanup_close_ int fd = (int) syscall(SYS_openat2, AT_FDCWD, root, &how, sizeof how);
                if (fd < 0 && errno == ENOSYS) /* as open_below_by_hand() */
                        fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        return negative_errno();
                return tree_open(fd, root, path, flags);
        }
        int fd = open(path, flags | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

int tree_open(int root_fd, const char *root, const char *path, int flags) {
        const char *rel = tree_relative(root, path);
        char done[PATH_MAX] = "", todo[PATH_MAX], target[PATH_MAX];
        unsigned links = 0;

        /* done: the components resolved so far, none a link; todo: what
         * is left, links replaced by their targets as they come. */
        if (!rel)
                return -EXDEV;
        if (snprintf(todo, sizeof todo, "%s", rel) >= (int) sizeof todo)
                return -ENAMETOOLONG;
        for (char *p = todo;;) {
                p += strspn(p, "/");
                if (!*p)
                        break;
                size_t len = strcspn(p, "/"), had = strlen(done);
                if (len == 1 && p[0] == '.') {
                        p += len;
                        continue;
                }
                if (len == 2 && p[0] == '.' && p[1] == '.') {
                        if (!had)
                                return -EXDEV; /* above root */
                        char *slash = strrchr(done, '/');
                        *(slash ? slash : done) = '\0';
                        p += len;
                        continue;
                }
                if (had + 1 + len >= sizeof done)
                        return -ENAMETOOLONG;
                snprintf(done + had, sizeof done - had, "%s%.*s", had ? "/" : "", (int) len, p);
                p += len;
                int r = is_link(root_fd, done);
                if (r <= 0) {
                        if (r < 0)
                                return r;
                        continue;
                }
                const char *to;
                bool absolute;
                if (++links > TREE_MAX_LINKS)
                        return -ELOOP;
                r = link_target(root_fd, root, done, target, sizeof target, &to, &absolute);
                if (r < 0)
                        return r;
                /* A relative target goes on from the link's directory, an
                 * absolute one from root. */
                done[absolute ? 0 : had] = '\0';
                char rest[PATH_MAX];
                if (snprintf(rest, sizeof rest, "%s/%s", to, p) >= (int) sizeof rest)
                        return -ENAMETOOLONG;
                memcpy(todo, rest, sizeof todo);
                p = todo;
        }
        return open_below(root_fd, done, flags);
}
