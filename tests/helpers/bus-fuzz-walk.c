/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bus-fuzz-walk.h"

#define WALK_DEPTH_MAX 128

static int walk_level(sd_bus_message *m, const WalkVisitor *v, void *userdata, unsigned depth) {
        for (;;) {
                const char *contents;
                char type;
                int r = sd_bus_message_peek_type(m, &type, &contents);
                if (r <= 0)
                        return r; /* 0: the end of this level */
                if (type == 'a' || type == 'r' || type == 'e' || type == 'v') {
                        if (depth >= WALK_DEPTH_MAX)
                                return -ELOOP;
                        r = sd_bus_message_enter_container(m, type, contents);
                        if (r < 0)
                                return r;
                        if (v->enter && (r = v->enter(type, contents, userdata)) < 0)
                                return r;
                        r = walk_level(m, v, userdata, depth + 1);
                        if (r < 0)
                                return r;
                        r = sd_bus_message_exit_container(m);
                        if (r < 0)
                                return r;
                        if (v->leave && (r = v->leave(type, userdata)) < 0)
                                return r;
                        continue;
                }
                WalkValue value;
                r = sd_bus_message_read_basic(m, type, &value);
                if (r < 0)
                        return r;
                if (v->basic && (r = v->basic(type, &value, userdata)) < 0)
                        return r;
        }
}

int walk_message(sd_bus_message *m, const WalkVisitor *v, void *userdata) {
        int r = sd_bus_message_rewind(m, true);
        if (r < 0)
                return r;
        return walk_level(m, v, userdata, 0);
}

void walk_quote(const char *s, size_t max, char *buf, size_t size) {
        size_t len = strlen(s), o = 0;
        if (size == 0)
                return;
        for (size_t i = 0; i < len && i < max && o + 5 < size; i++) {
                unsigned char c = (unsigned char) s[i];
                if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
                        o += (size_t) snprintf(buf + o, size - o, "\\x%02x", c);
                else
                        buf[o++] = (char) c;
        }
        buf[o] = 0;
        if (len > max)
                snprintf(buf + o, size - o, "...(%zu bytes)", len);
}

typedef struct Out {
        char *buf;
        size_t size, len;
        bool first;             /* nothing written yet at this level */
} Out;

static void put(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Out *o, const char *fmt, ...) {
        va_list ap;
        if (o->len + 1 >= o->size)
                return;
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
        va_end(ap);
        if (n > 0)
                o->len = o->len + (size_t) n < o->size ? o->len + (size_t) n : o->size - 1;
}

static void separate(Out *o) {
        if (!o->first)
                put(o, ", ");
        o->first = false;
}

static int format_basic(char type, const WalkValue *v, void *userdata) {
        Out *o = userdata;
        char q[512];
        separate(o);
        switch (type) {
        case 'y': put(o, "y %u", v->y); break;
        case 'b': put(o, "b %s", v->b ? "true" : "false"); break;
        case 'n': put(o, "n %d", v->n); break;
        case 'q': put(o, "q %u", v->q); break;
        case 'i': put(o, "i %" PRId32, v->i); break;
        case 'u': put(o, "u %" PRIu32, v->u); break;
        case 'x': put(o, "x %" PRId64, v->x); break;
        case 't': put(o, "t %" PRIu64, v->t); break;
        case 'd': put(o, "d %.17g", v->d); break;
        case 'h': put(o, "h fd"); break;
        default:
                walk_quote(v->s, 120, q, sizeof q);
                put(o, "%c \"%s\"", type, q);
        }
        return 0;
}

static int format_enter(char type, const char *contents, void *userdata) {
        Out *o = userdata;
        separate(o);
        switch (type) {
        case 'a': put(o, "a%s[", contents); break;
        case 'r': put(o, "("); break;
        case 'e': put(o, "{"); break;
        default: put(o, "v<%s> ", contents);
        }
        o->first = true;
        return 0;
}

static int format_leave(char type, void *userdata) {
        Out *o = userdata;
        put(o, "%s", type == 'a' ? "]" : type == 'r' ? ")" : type == 'e' ? "}" : "");
        o->first = false;
        return 0;
}

int walk_format(sd_bus_message *m, char *buf, size_t size) {
        static const WalkVisitor v = { format_basic, format_enter, format_leave };
        Out o = { .buf = buf, .size = size, .first = true };
        if (size == 0)
                return -EINVAL;
        buf[0] = 0;
        int r = walk_message(m, &v, &o);
        if (o.len + 1 >= size && size > 4)
                strcpy(buf + size - 4, "...");
        return r;
}
