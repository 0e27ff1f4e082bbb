/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/knob-table.h"
#include "core/macro.h"
#include "core/state-record.h"

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
