/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-fuzz-proc.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

int triple_parse(const char *s, Triple *ret) {
        char slice[32];
        Triple t;
        if (sscanf(s, "%d %d %31s", &t.policy, &t.nice, slice) != 3)
                return -EINVAL;
        if (strcmp(slice, "-") == 0)
                t.slice = -1;
        else {
                char *end;
                errno = 0;
                t.slice = strtoll(slice, &end, 10);
                if (errno || *end || t.slice < 0)
                        return -EINVAL;
        }
        *ret = t;
        return 0;
}

const char *triple_format(const Triple *t, char buf[static TRIPLE_STRING_MAX]) {
        if (t->slice < 0)
                snprintf(buf, TRIPLE_STRING_MAX, "%d %d -", t->policy, t->nice);
        else
                snprintf(buf, TRIPLE_STRING_MAX, "%d %d %lld", t->policy, t->nice, t->slice);
        return buf;
}

bool triple_equal(const Triple *a, const Triple *b) {
        return a->policy == b->policy && a->nice == b->nice && a->slice == b->slice;
}

bool triple_above(const Triple *t, const Triple *ceiling) {
        if (t->policy == SCHED_FIFO || t->policy == SCHED_RR || t->policy == SCHED_DEADLINE)
                return true;
        if (t->nice != ceiling->nice)
                return t->nice < ceiling->nice;
        return t->slice >= 0 && ceiling->slice >= 0 && t->slice < ceiling->slice;
}

/* The fields after "(comm)" of /proc/TID/stat: field N is words[N - 3]. */
static int stat_fields(pid_t tid, char *buf, size_t size, char **words, size_t n_words) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int) tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        bool ok = fgets(buf, (int) size, f) != NULL;
        fclose(f);
        if (!ok)
                return -ESRCH;
        char *p = strrchr(buf, ')'); /* comm may hold spaces and ')' */
        if (!p)
                return -EIO;
        p++;
        size_t n = 0;
        for (char *w = strtok(p, " \n"); w && n < n_words; w = strtok(NULL, " \n"))
                words[n++] = w;
        return n == n_words ? 0 : -EIO;
}

static int sched_slice(pid_t tid, long long *ret) {
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%d/sched", (int) tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        *ret = -1;
        while (fgets(line, sizeof line, f)) {
                char key[64];
                long long v;
                if (sscanf(line, "%63s : %lld", key, &v) == 2 && strcmp(key, "se.slice") == 0) {
                        *ret = v;
                        break;
                }
        }
        fclose(f);
        return 0;
}

int proc_triple(pid_t tid, Triple *ret) {
        char buf[1024], *w[39];
        Triple t;
        int r = stat_fields(tid, buf, sizeof buf, w, 39);
        if (r < 0)
                return r;
        t.nice = atoi(w[19 - 3]);
        t.policy = atoi(w[41 - 3]);
        r = sched_slice(tid, &t.slice);
        if (r < 0)
                return r;
        *ret = t;
        return 0;
}

int proc_start_ticks(pid_t tid, uint64_t *ret) {
        char buf[1024], *w[20];
        int r = stat_fields(tid, buf, sizeof buf, w, 20);
        if (r < 0)
                return r;
        *ret = strtoull(w[22 - 3], NULL, 10);
        return 0;
}

int proc_real_uid(pid_t tid, uid_t *ret) {
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%d/status", (int) tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        int r = -EIO;
        while (fgets(line, sizeof line, f)) {
                unsigned u;
                if (sscanf(line, "Uid: %u", &u) == 1) {
                        *ret = (uid_t) u;
                        r = 0;
                        break;
                }
        }
        fclose(f);
        return r;
}

int proc_in_cgroup(pid_t tid, const char *path) {
        char file[64], line[4096];
        snprintf(file, sizeof file, "/proc/%d/cgroup", (int) tid);
        FILE *f = fopen(file, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        int r = 0;
        while (r == 0 && fgets(line, sizeof line, f)) {
                char *p = strchr(line, ':');
                p = p ? strchr(p + 1, ':') : NULL; /* "ID:CONTROLLERS:PATH" */
                if (p) {
                        p[1 + strcspn(p + 1, "\n")] = 0;
                        r = strcmp(p + 1, path) == 0;
                }
        }
        fclose(f);
        return r;
}

int proc_own_tasks(pid_t **ret, size_t *ret_n) {
        DIR *d = opendir("/proc/self/task");
        if (!d)
                return -errno;
        pid_t *list = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                if (n == cap) {
                        cap = cap ? cap * 2 : 16;
                        pid_t *grown = realloc(list, cap * sizeof *list);
                        if (!grown) {
                                free(list);
                                closedir(d);
                                return -ENOMEM;
                        }
                        list = grown;
                }
                list[n++] = (pid_t) atoi(de->d_name);
        }
        closedir(d);
        *ret = list;
        *ret_n = n;
        return 0;
}
