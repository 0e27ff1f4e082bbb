/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/knob-table.h"
#include "core/log.h"
#include "core/macro.h"
#include "state/runtime-dir.h"
#include "state/state-file.h"

/*
 * A record is one line, its fields named:
 *
 *   C tid=1234 start=98765 class=background orig.policy=0 orig.nice=0 ...
 *     ... set.policy=5 set.nice=19 ... set.group=background
 *   F tid=1234 start=98765
 *
 * "C" keeps a task's original and what qosd set it to, "F" forgets it.
 * After "orig." and "set." come the knobs' names, with values in their
 * rows' persist format (knob-table.h), so a new knob is kept with no change
 * here; a knob a record does not name (written before the knob existed)
 * reads as TASK_ATTR_NEUTRAL has it, as an "A" record's group does. A
 * named record counts only with its newline, so a line torn by a crash is
 * never read as a shorter one; an unknown, repeated or unparsable field
 * refuses the whole record, and the warning names the field.
 *
 * Earlier qosd wrote positional records, still read: "A TID START CLASS"
 * with eight attribute fields per side, "B" with the group (which of
 * qosd's cpu groups, 0: none) as a ninth, a new tag rather than a longer
 * "A" so that a torn "B" line never parses as a shorter "A" one, and
 * "F TID START".
 */

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

int state_record_format(const StateRecord *r, char *buf, size_t size) {
        int n = snprintf(buf, size, "C tid=%d start=%" PRIu64 " class=%s", (int) r->tid, r->start_time,
                         qclass_is_valid(r->class) ? qclass_to_string(r->class) : "unspecified");
        if (n < 0 || (size_t) n >= size)
                return -ENOBUFS;
        size_t len = (size_t) n;
        int m = knob_persist_format_attr(&r->orig, "orig", buf + len, size - len);
        if (m < 0)
                return m;
        len += (size_t) m;
        m = knob_persist_format_attr(&r->set, "set", buf + len, size - len);
        if (m < 0)
                return m;
        len += (size_t) m;
        if (len + 2 > size)
                return -ENOBUFS;
        buf[len++] = '\n';
        buf[len] = '\0';
        return (int) len;
}

/* -EINVAL, with why the record is refused in why (if not NULL). */
_printf_(3, 4) static int refuse(char *why, size_t size, const char *fmt, ...) {
        if (why && size > 0) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(why, size, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

/* The positional records of earlier qosd ("A", "B"; "F" in parse_forget). */
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

static int parse_positional(const char *line, StateRecord *ret, char *why, size_t why_size) {
        StateRecord r = {};
        int tid, cls, n = 0, m = 0;
        char tag = line[0];

        if (sscanf(line + 1, " %d %" SCNu64 " %d%n", &tid, &r.start_time, &cls, &n) != 3)
                return refuse(why, why_size, "malformed %c record", tag);
        if (tid <= 0 || !qclass_is_valid(cls))
                return refuse(why, why_size, "%c record: no such thread or class", tag);
        n += 1;
        if (parse_attr(line + n, tag == 'B', &r.orig, &m) < 0)
                return refuse(why, why_size, "%c record: malformed original", tag);
        n += m;
        if (parse_attr(line + n, tag == 'B', &r.set, &m) < 0)
                return refuse(why, why_size, "%c record: malformed setting", tag);
        r.tid = tid;
        r.class = cls;
        *ret = r;
        return 0;
}

/* The fields of a named record, each at most once. */
enum {
        FIELD_TID = 1u << 0,
        FIELD_START = 1u << 1,
        FIELD_CLASS = 1u << 2,
};

static int parse_class_name(const char *s) {
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                if (strcmp(s, qclass_to_string(c)) == 0)
                        return c;
        return -EINVAL;
}

/* One "key=value" of a named record into r; seen[0] the record's own
 * fields, seen[1] and seen[2] the knobs of orig and set. */
static int parse_field(char tag, const char *key, const char *value, StateRecord *r, unsigned seen[3],
                       char *why, size_t why_size) {
        unsigned bit, *mask = &seen[0];
        int v = 0, ok;

        if (strcmp(key, "tid") == 0) {
                bit = FIELD_TID;
                ok = knob_parse_int(value, &v) >= 0 && v > 0;
                r->tid = v;
        } else if (strcmp(key, "start") == 0) {
                bit = FIELD_START;
                ok = knob_parse_u64(value, &r->start_time) >= 0;
        } else if (tag == 'C' && strcmp(key, "class") == 0) {
                bit = FIELD_CLASS;
                v = parse_class_name(value);
                ok = v >= 0;
                r->class = v;
        } else if (tag == 'C' && (strncmp(key, "orig.", 5) == 0 || strncmp(key, "set.", 4) == 0)) {
                bool orig = key[0] == 'o';
                Knob k;
                int e = knob_persist_parse_field(key + (orig ? 5 : 4), value, orig ? &r->orig : &r->set, &k);
                if (e == -ENOENT)
                        return refuse(why, why_size, "unknown field \"%.40s\"", key);
                mask = &seen[orig ? 1 : 2];
                bit = KNOB_BIT(k);
                ok = e >= 0;
        } else
                return refuse(why, why_size, "unknown field \"%.40s\"", key);

        if (*mask & bit)
                return refuse(why, why_size, "field \"%.40s\" repeated", key);
        *mask |= bit;
        if (!ok)
                return refuse(why, why_size, "bad value \"%.40s\" for \"%.40s\"", value, key);
        return 0;
}

/* "C ..." or "F tid=...": fields separated by one blank, then a newline. */
static int parse_named(const char *line, StateRecord *ret, char *why, size_t why_size) {
        StateRecord r = { .orig = TASK_ATTR_NEUTRAL, .set = TASK_ATTR_NEUTRAL };
        char buf[STATE_LINE_MAX];
        unsigned seen[3] = {};
        char tag = line[0];
        size_t len = strlen(line);

        if (line[1] != ' ')
                return refuse(why, why_size, "%c record without a blank after its tag", tag);
        if (line[len - 1] != '\n')
                return refuse(why, why_size, "%c record without its newline (torn, or over %d bytes)", tag,
                              STATE_LINE_MAX - 1);
        if (len > sizeof buf)
                return refuse(why, why_size, "%c record over %d bytes", tag, STATE_LINE_MAX - 1);
        memcpy(buf, line, len - 1);
        buf[len - 1] = '\0';

        for (char *field = buf + 2, *next; field; field = next) {
                next = strchr(field, ' ');
                if (next)
                        *next++ = '\0';
                char *eq = strchr(field, '=');
                if (!eq || eq == field)
                        return refuse(why, why_size, "field \"%.40s\" is not NAME=VALUE", field);
                *eq = '\0';
                int e = parse_field(tag, field, eq + 1, &r, seen, why, why_size);
                if (e < 0)
                        return e;
        }
        unsigned need = FIELD_TID | FIELD_START | (tag == 'C' ? FIELD_CLASS : 0);
        if ((seen[0] & need) != need)
                return refuse(why, why_size, "%c record without %s", tag,
                              !(seen[0] & FIELD_TID) ? "tid" : !(seen[0] & FIELD_START) ? "start" : "class");
        *ret = r;
        return 0;
}

static int parse_forget(const char *line, StateRecord *ret, char *why, size_t why_size) {
        StateRecord r = {};
        int tid, n = 0;

        if (strncmp(line, "F tid=", 6) == 0)
                return parse_named(line, ret, why, why_size);
        if (sscanf(line, "F %d %" SCNu64 "%n", &tid, &r.start_time, &n) != 2 || n == 0)
                return refuse(why, why_size, "malformed F record");
        r.tid = tid;
        *ret = r;
        return 0;
}

int state_record_parse(const char *line, StateRecord *ret, int *ret_forget, char *why, size_t why_size) {
        int r;

        if (why && why_size > 0)
                why[0] = '\0';
        switch (line[0]) {
        case 'F':
                r = parse_forget(line, ret, why, why_size);
                break;
        case 'C':
                r = parse_named(line, ret, why, why_size);
                break;
        case 'A':
        case 'B':
                r = parse_positional(line, ret, why, why_size);
                break;
        default:
                return refuse(why, why_size, "not a record (C, F, or an earlier qosd's A or B)");
        }
        if (r >= 0)
                *ret_forget = line[0] == 'F';
        return r;
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
