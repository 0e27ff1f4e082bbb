/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "state-file.h"

/* "B" records carry the group (which of qosd's cpu groups, 0: none) as a
 * ninth field; "A" records, from before groups, have eight and mean none. A
 * new tag rather than a longer "A" so that a torn "B" line never parses as
 * a shorter "A" one. */
#define ATTR_FMT "%d %d %" PRIu64 " %d %d %d %d %" PRIu64 " %d"
#define ATTR_ARGS(a) (a).policy, (a).nice, (a).slice_ns, (int) (a).reset_on_fork, \
        (a).uclamp_min, (a).uclamp_max, (a).ioprio, (a).timer_slack_ns, (int) (a).group

static int mkdir_parents(const char *path) {
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                *s = '/';
        }
        return 0;
}

int state_file_open(StateFile *sf, const char *path) {
        int r;
        *sf = (StateFile) { .fd = -1 };
        sf->path = strdup(path);
        if (!sf->path)
                return -ENOMEM;
        r = mkdir_parents(path);
        if (r < 0)
                return log_error_errno(r, "%s: cannot create directory: %m", path);
        sf->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (sf->fd < 0)
                return log_error_errno(errno, "%s: cannot open: %m", path);
        return 0;
}

void state_file_close(StateFile *sf) {
        if (sf->fd >= 0)
                close(sf->fd);
        sf->fd = -1;
        free(sf->path);
        sf->path = NULL;
}

int state_record_format(const StateRecord *r, char *buf, size_t size) {
        int n = snprintf(buf, size, "B %d %" PRIu64 " %d " ATTR_FMT " " ATTR_FMT "\n",
                         (int) r->tid, r->start_time, (int) r->class, ATTR_ARGS(r->orig),
                         ATTR_ARGS(r->set));
        return n < 0 || (size_t) n >= size ? -ENOBUFS : n;
}

static int parse_attr(const char *s, bool with_group, TaskAttr *a, int *consumed) {
        int rof, group = 0, n = 0;
        if (sscanf(s, " %d %d %" SCNu64 " %d %d %d %d %" SCNu64 "%n", &a->policy, &a->nice,
                   &a->slice_ns, &rof, &a->uclamp_min, &a->uclamp_max, &a->ioprio,
                   &a->timer_slack_ns, &n) != 8)
                return -EINVAL;
        if (with_group) {
                int m = 0;
                if (sscanf(s + n, " %d%n", &group, &m) != 1 || (group != 0 && !qclass_is_valid(group)))
                        return -EINVAL;
                n += m;
        }
        a->reset_on_fork = rof;
        a->group = group;
        *consumed = n;
        return 0;
}

int state_record_parse(const char *line, StateRecord *ret, int *ret_forget) {
        StateRecord r = {};
        int tid, cls, n = 0, m = 0;

        if (sscanf(line, "F %d %" SCNu64 "%n", &tid, &r.start_time, &n) == 2 && n > 0) {
                r.tid = tid;
                *ret = r;
                *ret_forget = 1;
                return 0;
        }
        char tag = line[0];
        if ((tag != 'A' && tag != 'B') ||
            sscanf(line + 1, " %d %" SCNu64 " %d%n", &tid, &r.start_time, &cls, &n) != 3)
                return -EINVAL;
        if (tid <= 0 || !qclass_is_valid(cls))
                return -EINVAL;
        n += 1;
        if (parse_attr(line + n, tag == 'B', &r.orig, &m) < 0)
                return -EINVAL;
        n += m;
        if (parse_attr(line + n, tag == 'B', &r.set, &m) < 0)
                return -EINVAL;
        r.tid = tid;
        r.class = cls;
        *ret = r;
        *ret_forget = 0;
        return 0;
}

static int write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                buf += n;
                len -= (size_t) n;
        }
        return 0;
}

int state_file_append(StateFile *sf, const TaskEntry *e) {
        StateRecord r = { e->tid, e->start_time, e->class, e->orig, e->set };
        char line[256];
        int n;

        if (sf->fd < 0)
                return 0;
        n = state_record_format(&r, line, sizeof line);
        if (n < 0)
                return n;
        sf->lines++;
        return write_all(sf->fd, line, (size_t) n);
}

int state_file_forget(StateFile *sf, pid_t tid, uint64_t start_time) {
        char line[64];
        int n;

        if (sf->fd < 0)
                return 0;
        n = snprintf(line, sizeof line, "F %d %" PRIu64 "\n", (int) tid, start_time);
        sf->lines++;
        return write_all(sf->fd, line, (size_t) n);
}

int state_file_compact(StateFile *sf, const TaskRegistry *reg) {
        _cleanup_free_ char *tmp = NULL;
        _cleanup_free_ TaskEntry **list = NULL;
        size_t n;
        int r;

        if (sf->fd < 0)
                return 0;
        if (asprintf(&tmp, "%s.tmp", sf->path) < 0)
                return -ENOMEM;
        r = registry_list(reg, &list, &n);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return log_error_errno(errno, "%s: cannot create: %m", tmp);
        for (size_t i = 0; i < n && r >= 0; i++) {
                if (list[i]->state == TASK_FOREIGN)
                        continue; /* not ours to restore any more */
                StateRecord rec = { list[i]->tid, list[i]->start_time, list[i]->class,
                                    list[i]->orig, list[i]->set };
                char line[256];
                int len = state_record_format(&rec, line, sizeof line);
                r = len < 0 ? len : write_all(fd, line, (size_t) len);
        }
        if (r < 0 || rename(tmp, sf->path) < 0) {
                r = r < 0 ? r : negative_errno();
                unlink(tmp);
                return log_error_errno(r, "%s: cannot rewrite: %m", sf->path);
        }
        /* The old descriptor points at the replaced file: switch to the new one. */
        close(sf->fd);
        sf->fd = TAKE_FD(fd);
        if (lseek(sf->fd, 0, SEEK_END) < 0)
                return negative_errno();
        int fl = fcntl(sf->fd, F_GETFL);
        if (fl < 0 || fcntl(sf->fd, F_SETFL, fl | O_APPEND) < 0)
                return negative_errno();
        sf->lines = n;
        return 0;
}

int state_file_maybe_compact(StateFile *sf, const TaskRegistry *reg) {
        if (sf->lines < 2 * registry_size(reg) + 4096)
                return 0;
        return state_file_compact(sf, reg);
}

int state_file_remove(StateFile *sf) {
        if (!sf->path)
                return 0;
        if (unlink(sf->path) < 0 && errno != ENOENT)
                return negative_errno();
        return 0;
}

void state_records_free(PidMap *m) {
        size_t i = 0;
        void *v;
        while (pid_map_next(m, &i, NULL, &v))
                free(v);
        pid_map_clear(m);
}

int state_file_read(FILE *f, const char *path, PidMap *ret) {
        PidMap m = PID_MAP_INIT;
        char line[512];
        unsigned lineno = 0;

        *ret = m;
        while (fgets(line, sizeof line, f)) {
                StateRecord rec;
                int forget, r;
                lineno++;
                if (state_record_parse(line, &rec, &forget) < 0) {
                        log_warning("%s:%u: malformed record, skipped", path, lineno);
                        continue;
                }
                StateRecord *old = pid_map_get(&m, rec.tid);
                if (forget) {
                        if (old && old->start_time == rec.start_time)
                                free(pid_map_remove(&m, rec.tid));
                        continue;
                }
                /* A later record for the same task (a new class after a
                 * reload) updates what qosd set but keeps the first original. */
                if (old && old->start_time == rec.start_time) {
                        old->class = rec.class;
                        old->set = rec.set;
                        continue;
                }
                StateRecord *n = malloc(sizeof *n);
                if (!n) {
                        state_records_free(&m);
                        return -ENOMEM;
                }
                *n = rec;
                free(pid_map_remove(&m, rec.tid));
                r = pid_map_put(&m, rec.tid, n);
                if (r < 0) {
                        free(n);
                        state_records_free(&m);
                        return r;
                }
        }
        *ret = m;
        return 0;
}

int state_file_load(const char *path, PidMap *ret) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");

        *ret = PID_MAP_INIT;
        if (!f)
                return errno == ENOENT ? 0 : log_error_errno(errno, "%s: cannot open: %m", path);
        return state_file_read(f, path, ret);
}
