/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fileio.h"
#include "core/macro.h"
#include "core/proc.h"

static int task_path(char *buf, size_t size, pid_t pid, pid_t tid, const char *file) {
        int n;
        if (pid > 0 && tid > 0)
                n = snprintf(buf, size, "/proc/%d/task/%d/%s", (int) pid, (int) tid, file);
        else
                n = snprintf(buf, size, "/proc/%d/%s", (int) (tid > 0 ? tid : pid), file);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

/* A vanished task shows as ENOENT (or ESRCH on read); both mean "gone". */
static int gone_or(int r) {
        return r == -ENOENT || r == -ESRCH ? -ESRCH : r;
}

/* task_path() + read_small_file(): most readers want exactly that. */
static int read_task_file(pid_t pid, pid_t tid, const char *file, char *buf, size_t size, size_t *ret_len) {
        char path[64];
        int r = task_path(path, sizeof path, pid, tid, file);
        if (r < 0)
                return r;
        return gone_or(read_small_file(path, buf, size, ret_len));
}

int proc_read_stat(pid_t pid, pid_t tid, ProcStat *ret) {
        char buf[1024];
        ProcStat st = {};
        int r;

        r = read_task_file(pid, tid, "stat", buf, sizeof buf, NULL);
        if (r < 0)
                return r;

        /* comm may contain spaces and parentheses: it ends at the last ')'. */
        char *open_paren = strchr(buf, '(');
        char *close_paren = strrchr(buf, ')');
        if (!open_paren || !close_paren || close_paren < open_paren)
                return -EIO;
        size_t clen = (size_t) (close_paren - open_paren - 1);
        if (clen >= sizeof st.comm)
                clen = sizeof st.comm - 1;
        memcpy(st.comm, open_paren + 1, clen);
        st.comm[clen] = '\0';
        st.pid = (pid_t) strtol(buf, NULL, 10);

        /* Fields after comm, numbered as in proc(5): 3 state, 4 ppid, ...,
         * 9 flags, 19 nice, 22 starttime, 41 policy. */
        char *p = close_paren + 2, *save = NULL;
        int field = 3;
        for (char *tok = strtok_r(p, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
                switch (field) {
                case 3:
                        st.state = tok[0];
                        break;
                case 4:
                        st.ppid = (pid_t) strtol(tok, NULL, 10);
                        break;
                case 9:
                        st.flags = (unsigned) strtoul(tok, NULL, 10);
                        break;
                case 19:
                        st.nice = (int) strtol(tok, NULL, 10);
                        break;
                case 22:
                        st.start_time = strtoull(tok, NULL, 10);
                        break;
                case 41:
                        st.policy = (int) strtol(tok, NULL, 10);
                        break;
                }
        }
        if (field <= 41)
                return -EIO;
        st.tgid = pid > 0 ? pid : 0;
        *ret = st;
        return 0;
}

int proc_start_time(pid_t tid, uint64_t *ret) {
        ProcStat st;
        int r = proc_read_stat(0, tid, &st);
        if (r < 0)
                return r;
        *ret = st.start_time;
        return 0;
}

/* A field of /proc/PID/task/TID/status (pid 0: /proc/TID/status). */
static int status_field(pid_t pid, pid_t tid, const char *key, char *out, size_t outsize) {
        char buf[4096];
        size_t klen = strlen(key);
        int r;

        r = read_task_file(pid, tid, "status", buf, sizeof buf, NULL);
        if (r < 0)
                return r;
        for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
                        const char *v = line + klen + 1;
                        while (*v == ' ' || *v == '\t')
                                v++;
                        size_t n = strcspn(v, "\n");
                        if (n >= outsize)
                                n = outsize - 1;
                        memcpy(out, v, n);
                        out[n] = '\0';
                        return 0;
                }
        }
        return -EIO;
}

int proc_tgid(pid_t tid, pid_t *ret) {
        char v[32];
        int r = status_field(0, tid, "Tgid", v, sizeof v);
        if (r < 0)
                return r;
        *ret = (pid_t) strtol(v, NULL, 10);
        return 0;
}

int proc_ns_tid(pid_t pid, pid_t tid, pid_t *ret_inner, unsigned *ret_depth) {
        char v[256], *p = v, *end;
        unsigned depth = 0;
        long last = tid;
        int r = status_field(pid, tid, "NSpid", v, sizeof v);
        if (r == -EIO) { /* no such line */
                *ret_inner = tid;
                *ret_depth = 1;
                return 0;
        }
        if (r < 0)
                return r;
        for (;;) {
                errno = 0;
                long n = strtol(p, &end, 10);
                if (end == p)
                        break;
                if (errno || n <= 0 || n > INT32_MAX)
                        return -EIO;
                last = n;
                depth++;
                p = end;
        }
        if (depth == 0)
                return -EIO;
        *ret_inner = (pid_t) last;
        *ret_depth = depth;
        return 0;
}

/* Whether, in the process's mount table, the last mount on "/" or on
 * "/NAME" is FUSE: opening a file there asks its user's daemon, which may
 * never answer. The table is the kernel's, read without asking anyone. */
static bool root_file_on_fuse(pid_t pid, const char *name) {
        char path[64], line[4096];
        bool fuse = false;
        snprintf(path, sizeof path, "/proc/%d/mountinfo", (int) pid);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return true; /* cannot tell: do not open */
        while (fgets(line, sizeof line, f)) {
                char mnt[PATH_MAX], type[64];
                const char *dash = strstr(line, " - ");
                if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 || sscanf(dash + 3, "%63s", type) != 1)
                        continue;
                if (strcmp(mnt, "/") == 0 || (mnt[0] == '/' && strcmp(mnt + 1, name) == 0))
                        fuse = strncmp(type, "fuse", 4) == 0;
        }
        return fuse;
}

int proc_root_file(pid_t pid, const char *name, char *buf, size_t size) {
        char path[PATH_MAX];
        struct stat st;

        if (strchr(name, '/') || size == 0)
                return -EINVAL;
        if (root_file_on_fuse(pid, name))
                return -EINVAL;
        snprintf(path, sizeof path, "/proc/%d/root/%s", (int) pid, name);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
        if (fd < 0)
                return errno == ELOOP ? -EINVAL : negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        return read_small_fd(fd, buf, size, NULL);
}

int proc_uid(pid_t pid, uid_t *ret) {
        char v[64];
        int r = status_field(0, pid, "Uid", v, sizeof v);
        if (r < 0)
                return r;
        *ret = (uid_t) strtoul(v, NULL, 10);
        return 0;
}

int proc_owned_by(pid_t tid, uid_t uid) {
        char v[96];
        unsigned long ids[4];
        int r = status_field(0, tid, "Uid", v, sizeof v);
        if (r < 0)
                return r;
        if (sscanf(v, "%lu %lu %lu %lu", &ids[0], &ids[1], &ids[2], &ids[3]) != 4)
                return -EIO;
        for (size_t i = 0; i < 4; i++)
                if (ids[i] != (unsigned long) uid)
                        return 0;
        return 1;
}

int proc_cap_effective(pid_t pid, uint64_t *ret) {
        char v[32], *end;
        int r = status_field(0, pid, "CapEff", v, sizeof v);
        if (r < 0)
                return r;
        errno = 0;
        unsigned long long caps = strtoull(v, &end, 16);
        if (errno || end == v)
                return -EIO;
        *ret = (uint64_t) caps;
        return 0;
}

int proc_comm(pid_t pid, pid_t tid, char ret[PROC_COMM_MAX]) {
        char buf[64];
        size_t len;
        int r;

        r = read_task_file(pid, tid, "comm", buf, sizeof buf, &len);
        if (r < 0)
                return r;
        if (len > 0 && buf[len - 1] == '\n')
                buf[--len] = '\0';
        if (len >= PROC_COMM_MAX)
                len = PROC_COMM_MAX - 1;
        memcpy(ret, buf, len);
        ret[len] = '\0';
        return 0;
}

int proc_exe(pid_t pid, char **ret) {
        char path[64], buf[PATH_MAX];
        ssize_t n;
        int r;

        r = task_path(path, sizeof path, 0, pid, "exe");
        if (r < 0)
                return r;
        n = readlink(path, buf, sizeof buf - 1);
        if (n < 0)
                return gone_or(negative_errno());
        buf[n] = '\0';
        static const char deleted[] = " (deleted)";
        size_t dl = sizeof deleted - 1;
        if ((size_t) n > dl && strcmp(buf + n - dl, deleted) == 0)
                buf[n - dl] = '\0';
        *ret = strdup(buf);
        return *ret ? 0 : -ENOMEM;
}

static bool same_file(const struct stat *a, const struct stat *b) {
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int stat_task_file(pid_t pid, const char *file, struct stat *ret) {
        char path[64];
        int r = task_path(path, sizeof path, 0, pid, file);
        if (r < 0)
                return r;
        return stat(path, ret) < 0 ? -errno : 0;
}

bool proc_exe_path_is_ours(pid_t pid, const char *exe) {
        struct stat own_ns, ns, real, named;

        if (!exe || exe[0] != '/')
                return false;
        if (stat("/proc/self/ns/mnt", &own_ns) == 0 && stat_task_file(pid, "ns/mnt", &ns) == 0 &&
            same_file(&own_ns, &ns))
                return true;
        return stat_task_file(pid, "exe", &real) == 0 && stat(exe, &named) == 0 && same_file(&real, &named);
}

int proc_cmdline(pid_t pid, char **ret_joined, char **ret_arg0) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 4096, len;
        int r;

        buf = malloc(size);
        if (!buf)
                return -ENOMEM;
        r = read_task_file(0, pid, "cmdline", buf, size, &len);
        if (r < 0)
                return r;
        if (len == 0)
                return -ENODATA; /* kernel thread or zombie */

        if (ret_arg0) {
                const char *slash = strrchr(buf, '/');
                *ret_arg0 = strdup(slash ? slash + 1 : buf);
                if (!*ret_arg0)
                        return -ENOMEM;
        }
        if (ret_joined) {
                while (len > 0 && buf[len - 1] == '\0')
                        len--;
                for (size_t i = 0; i < len; i++)
                        if (buf[i] == '\0')
                                buf[i] = ' ';
                buf[len] = '\0';
                *ret_joined = TAKE_PTR(buf);
        }
        return 0;
}

int proc_cgroup(pid_t pid, const char *controller, char **ret) {
        char buf[4096];
        int r;

        r = read_task_file(0, pid, "cgroup", buf, sizeof buf, NULL);
        if (r < 0)
                return r;
        /* Lines are "ID:controllers:path"; v2 is "0::path". */
        for (char *line = buf, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                char *c1 = strchr(line, ':');
                char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2)
                        continue;
                *c2 = '\0';
                const char *ctrls = c1 + 1;
                bool match = false;
                if (!controller || !*controller)
                        match = *ctrls == '\0';
                else {
                        char list[256];
                        snprintf(list, sizeof list, "%s", ctrls);
                        char *save = NULL;
                        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
                                if (strcmp(t, controller) == 0)
                                        match = true;
                }
                if (match) {
                        *ret = strdup(c2 + 1);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        return -ENOENT;
}

static int list_numeric(const char *dir, pid_t **ret, size_t *ret_n) {
        _cleanup_closedir_ DIR *d = opendir(dir);
        _cleanup_free_ pid_t *v = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;

        if (!d)
                return gone_or(negative_errno());
        while ((de = readdir(d))) {
                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                if (n == cap) {
                        size_t ncap = cap ? cap * 2 : 64;
                        pid_t *nv = realloc(v, ncap * sizeof *nv);
                        if (!nv)
                                return -ENOMEM;
                        v = nv;
                        cap = ncap;
                }
                v[n++] = (pid_t) strtol(de->d_name, NULL, 10);
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

int proc_list_tasks(pid_t pid, pid_t **ret, size_t *ret_n) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int) pid);
        return list_numeric(path, ret, ret_n);
}

int proc_list_pids(pid_t **ret, size_t *ret_n) {
        return list_numeric("/proc", ret, ret_n);
}

int proc_sched_slice(pid_t pid, pid_t tid, uint64_t *ret) {
        char buf[8192];
        int r;

        r = read_task_file(pid, tid, "sched", buf, sizeof buf, NULL);
        if (r < 0)
                return r;
        const char *p = strstr(buf, "\nse.slice");
        if (!p)
                return -ENOENT;
        p = strchr(p, ':');
        if (!p)
                return -EIO;
        *ret = strtoull(p + 1, NULL, 10);
        return 0;
}
