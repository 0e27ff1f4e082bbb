/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/macro.h"
#include "state/runtime-dir.h"
#include "state/state-file.h"

/* While records cannot be written, qosd tries again every
 * RUNTIME_RETRY_USEC (a rewrite from the registry: the records missed
 * meanwhile come back too). */

static int on_retry(sd_event_source *es, uint64_t usec, void *userdata);

static void set_on(StateFile *sf) {
        if (sf->error < 0)
                log_notice("%s: crash recovery is on again", sf->path);
        sf->error = 0;
        sf->reason[0] = '\0';
}

/* Records cannot be kept: say so once per reason, and try again later. */
static void set_off(StateFile *sf, int error, const char *why) {
        if (sf->fd >= 0)
                close(sf->fd);
        sf->fd = -1;
        if (sf->error >= 0 || strcmp(sf->reason, why) != 0)
                log_warning("%s: crash recovery is off: %s. Classes still apply; a qosd killed now cannot "
                            "restore the originals of the threads it changes. Trying again every %d s.",
                            sf->path, why, (int) (RUNTIME_RETRY_USEC / 1000000));
        sf->error = error;
        snprintf(sf->reason, sizeof sf->reason, "%s", why);
        if (sf->event)
                runtime_retry_arm(sf->event, &sf->retry, on_retry, sf);
}

static int write_registry(int fd, const void *source, size_t *ret_n);

int state_file_open(StateFile *sf, const char *path, const TaskRegistry *reg, sd_event *event) {
        return state_file_open_with(sf, path, write_registry, reg, event);
}

int state_file_open_with(StateFile *sf, const char *path, StateRecordsWriter writer, const void *source,
                         sd_event *event) {
        char why[sizeof sf->reason];
        int r;

        *sf = (StateFile) { .fd = -1, .writer = writer, .source = source, .event = event };
        sf->path = strdup(path);
        if (!sf->path)
                return -ENOMEM;
        r = runtime_path_split(path, &sf->dir, &sf->name);
        if (r < 0)
                return r;
        _cleanup_close_ int dirfd = runtime_dir_open(sf->dir, true, why, sizeof why);
        if (dirfd < 0) {
                set_off(sf, dirfd, why);
                return 0;
        }
        /* Appended to, not rewritten: it still holds the previous run's
         * records until the first scan has taken them over. */
        sf->fd = runtime_file_open_append(dirfd, sf->name, why, sizeof why);
        if (sf->fd < 0)
                set_off(sf, sf->fd, why);
        return 0;
}

void state_file_close(StateFile *sf) {
        if (sf->fd >= 0)
                close(sf->fd);
        sf->fd = -1;
        sf->retry = sd_event_source_disable_unref(sf->retry);
        free(sf->path);
        free(sf->dir);
        free(sf->name);
        sf->path = sf->dir = sf->name = NULL;
}

bool state_file_recording(const StateFile *sf) {
        return sf->fd >= 0;
}

const char *state_file_status(const StateFile *sf, char *buf, size_t size) {
        if (!sf->path)
                return "off: qosd is starting";
        if (sf->fd >= 0)
                snprintf(buf, size, "on (%s)", sf->path);
        else
                snprintf(buf, size, "off: %s (%s); tried again every %d s", sf->reason, sf->path,
                         (int) (RUNTIME_RETRY_USEC / 1000000));
        return buf;
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

/* One record into the log. A failed write may leave a torn line; the
 * rewrite that turns recording on again drops it. */
static int append_line(StateFile *sf, const char *line, size_t len) {
        if (sf->fd < 0)
                return sf->error;
        int r = write_all(sf->fd, line, len);
        if (r < 0) {
                char why[sizeof sf->reason];
                snprintf(why, sizeof why, "cannot write %s: %s", sf->name, strerror(-r));
                set_off(sf, r, why);
                return r;
        }
        sf->lines++;
        return 0;
}

int state_file_append_record(StateFile *sf, const StateRecord *r) {
        char line[STATE_LINE_MAX];
        int n = state_record_format(r, line, sizeof line);
        if (n < 0)
                return n;
        return append_line(sf, line, (size_t) n);
}

int state_file_append(StateFile *sf, const TaskEntry *e) {
        StateRecord r = { e->tid, e->start_time, e->class, e->orig, e->set };
        return state_file_append_record(sf, &r);
}

int state_file_write_record(int fd, const StateRecord *r) {
        char line[STATE_LINE_MAX];
        int len = state_record_format(r, line, sizeof line);
        return len < 0 ? len : write_all(fd, line, (size_t) len);
}

int state_file_forget(StateFile *sf, pid_t tid, uint64_t start_time) {
        char line[64];
        int n;

        n = snprintf(line, sizeof line, "F tid=%d start=%" PRIu64 "\n", (int) tid, start_time);
        return append_line(sf, line, (size_t) n);
}

static int write_registry(int fd, const void *source, size_t *ret_n) {
        _cleanup_free_ TaskEntry **list = NULL;
        size_t n, written = 0;
        int r = registry_list(source, &list, &n);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (list[i]->state == TASK_FOREIGN)
                        continue; /* not ours to restore any more */
                StateRecord rec = { list[i]->tid, list[i]->start_time, list[i]->class, list[i]->orig,
                                    list[i]->set };
                r = state_file_write_record(fd, &rec);
                written++;
        }
        *ret_n = written;
        return r;
}

/* The log from the registry in a new file, moved over the old one. */
static int write_new(StateFile *sf, char *why, size_t size, int *ret_fd, size_t *ret_n) {
        _cleanup_close_ int dirfd = runtime_dir_open(sf->dir, true, why, size);
        if (dirfd < 0)
                return dirfd;
        /* rename() would replace a symbolic link or another user's file
         * without harm, but such a thing in qosd's directory means someone
         * meddles: leave it for the administrator to see. */
        int r = runtime_file_check(dirfd, sf->name, why, size);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = runtime_file_new(dirfd, sf->name, why, size);
        if (fd < 0)
                return fd;
        r = sf->writer(fd, sf->source, ret_n);
        if (r < 0) {
                runtime_file_discard(dirfd, sf->name);
                snprintf(why, size, "cannot write %s: %s", sf->name, strerror(-r));
                return r;
        }
        r = runtime_file_commit(dirfd, sf->name, why, size);
        if (r < 0)
                return r;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Rewrite the log; recording is on again if this works. */
static int rewrite(StateFile *sf) {
        char why[sizeof sf->reason];
        size_t n = 0;
        int fd = -1, r = write_new(sf, why, sizeof why, &fd, &n);
        if (r < 0) {
                set_off(sf, r, why);
                return r;
        }
        if (sf->fd >= 0)
                close(sf->fd);
        sf->fd = fd;
        sf->lines = n;
        set_on(sf);
        return 0;
}

static int on_retry(sd_event_source *es, uint64_t usec, void *userdata) {
        StateFile *sf = userdata;
        if (sf->fd < 0)
                (void) rewrite(sf); /* re-arms the timer if it fails */
        return 0;
}

int state_file_rewrite(StateFile *sf) {
        if (!sf->path)
                return 0;
        return rewrite(sf);
}

int state_file_compact(StateFile *sf, const TaskRegistry *reg) {
        sf->source = reg;
        return state_file_rewrite(sf);
}

int state_file_maybe_rewrite(StateFile *sf, size_t n) {
        if (sf->fd < 0 || sf->lines < 2 * n + 4096)
                return 0; /* while off, the retry timer rewrites */
        return state_file_rewrite(sf);
}

int state_file_maybe_compact(StateFile *sf, const TaskRegistry *reg) {
        sf->source = reg;
        return state_file_maybe_rewrite(sf, registry_size(reg));
}

int state_file_remove(StateFile *sf) {
        char why[sizeof sf->reason];
        if (!sf->path)
                return 0;
        _cleanup_close_ int dirfd = runtime_dir_open(sf->dir, false, why, sizeof why);
        if (dirfd < 0)
                return dirfd == -ENOENT ? 0 : dirfd;
        int r = runtime_file_check(dirfd, sf->name, why, sizeof why);
        if (r < 0)
                return r; /* not ours: left alone, as when it was refused */
        if (unlinkat(dirfd, sf->name, 0) < 0 && errno != ENOENT)
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
        char line[STATE_LINE_MAX], why[128];
        unsigned lineno = 0;
        int r;

        *ret = m;
        while (fgets(line, sizeof line, f)) {
                StateRecord rec;
                int forget;
                lineno++;
                if (strlen(line) == sizeof line - 1 && line[sizeof line - 2] != '\n') {
                        /* Longer than any record: the rest of it is no record either. */
                        int c;
                        while ((c = fgetc(f)) != EOF && c != '\n')
                                ;
                        log_warning("%s:%u: record skipped: over %d bytes", path, lineno, STATE_LINE_MAX - 1);
                        continue;
                }
                if (state_record_parse(line, &rec, &forget, why, sizeof why) < 0) {
                        log_warning("%s:%u: record skipped: %s", path, lineno, why);
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
        char why[256] = "";
        int r;

        *ret = PID_MAP_INIT;
        _cleanup_fclose_ FILE *f = runtime_path_fopen_read(path, why, sizeof why, &r);
        if (!f) {
                if (r == -ENOENT)
                        return 0;
                return log_warning_errno(r, "%s: the previous run's records are not read: %s", path,
                                         *why ? why : strerror(-r));
        }
        return state_file_read(f, path, ret);
}
