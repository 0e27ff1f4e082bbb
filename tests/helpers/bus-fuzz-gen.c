/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-fuzz-gen.h"
#include "bus-fuzz-walk.h"

#define MESSAGE_BUDGET (1024 * 1024)
#define STRING_MAX 65536
#define FDS_MAX 4
#define DEPTH_MAX 4
#define ELEMENTS(x) (sizeof(x) / sizeof((x)[0]))

/* splitmix64: one word of state, every seed a good stream. */
uint64_t rng_next(Rng *r) {
        uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

uint64_t rng_below(Rng *r, uint64_t n) {
        return n ? rng_next(r) % n : 0;
}

bool rng_one_in(Rng *r, uint64_t n) {
        return rng_below(r, n) == 0;
}

#define PICK(g, array) ((array)[rng_below(&(g)->rng, ELEMENTS(array))])

/* Class names as qosd and libqos spell them, and near misses. */
static const char *const class_words[] = {
        "user-interactive", "user-initiated", "utility", "background", "unspecified",
        "ui", "in", "ut", "bg", "default", "interactive", "initiated", "userinteractive",
        "qos-class-user-interactive", "qos-user-interactive", "QOS_CLASS_USER_INTERACTIVE",
        "User-Interactive", "user-interactive ", " background", "user_interactive", "user-interactive\n",
        "realtime", "fifo", "idle", "",
};

/* Profiles, focus sources, and strings that have broken parsers elsewhere. */
static const char *const other_words[] = {
        "throughput", "interactive", "qos", "default", "powersave", "x11", "kwin", "gnome-shell",
        "X11", "a/b", "abcdefghijklmnopqrstuvwxyz012345", "-1", "0", "1", "%s%n%x%p", "../../etc/passwd",
        "/proc/self/cwd", "*", "?", "[Match]", "\\x41", "file:1", "hidden: not your process",
};

static const char *const object_paths[] = {
        "/", "/org/qosd/QoS1", "/org/qosd", "/org/qosd/QoS1/a", "/org/freedesktop/DBus", "/a_1/B2/c",
};

static const char *const signatures[] = {
        "", "i", "s", "itsi", "itits", "ititst", "a(iisssss)", "v", "a{sv}", "((((i))))", "aaaai", "h",
};

static const int32_t special_ints[] = {
        0, -1, 1, 2, -2, INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1, -15, -16, 16, 31, 32, 1024, 1025,
        32767, 32768, 4194304, 4194305,
};

static const uint64_t special_u64[] = {
        0, 1, 2, UINT64_MAX, INT64_MAX, 1ULL << 63, 100, 4294967295ULL, 4294967296ULL,
};

int gen_init(Gen *g, uint64_t seed, const char *marker) {
        *g = (Gen) { .rng.state = seed, .marker = marker };
        g->scratch = malloc(STRING_MAX + 1);
        if (!g->scratch)
                return -ENOMEM;
        g->fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (g->fd < 0) {
                free(g->scratch);
                return -errno;
        }
        return 0;
}

void gen_done(Gen *g) {
        free(g->scratch);
        if (g->fd >= 0)
                close(g->fd);
        g->scratch = NULL;
        g->fd = -1;
}

void gen_add_tid(Gen *g, int32_t tid, uint64_t start, bool own) {
        if (g->n_tids < GEN_TIDS_MAX) {
                g->tids[g->n_tids] = tid;
                g->starts[g->n_tids++] = start;
                if (own)
                        g->n_own = g->n_tids;
        }
}

void gen_add_interface(Gen *g, const char *name) {
        if (g->n_interfaces < GEN_WORDS_MAX)
                g->interfaces[g->n_interfaces++] = name;
}

void gen_add_property(Gen *g, const char *name) {
        if (g->n_properties < GEN_WORDS_MAX)
                g->properties[g->n_properties++] = name;
}

void gen_add_address(Gen *g, uint64_t a) {
        if (g->n_addresses < GEN_ADDRESSES_MAX)
                g->addresses[g->n_addresses++] = a;
}

void gen_seen_int(Gen *g, int32_t v) {
        g->seen_ints[g->n_seen_ints++ % GEN_SEEN_MAX] = v;
}

void gen_seen_u64(Gen *g, uint64_t v) {
        g->seen_u64[g->n_seen_u64++ % GEN_SEEN_MAX] = v;
}

void gen_seen_id(Gen *g, uint64_t v) {
        g->seen_ids[g->n_seen_ids++ % GEN_SEEN_MAX] = v;
}

static size_t seen_count(size_t n) {
        return n < GEN_SEEN_MAX ? n : GEN_SEEN_MAX;
}

static int32_t gen_int(Gen *g) {
        unsigned k = (unsigned) rng_below(&g->rng, 100);
        if (k < 45 && g->n_tids) {
                g->last_tid = rng_below(&g->rng, g->n_tids);
                return g->tids[g->last_tid];
        }
        if (k < 60 && g->n_seen_ints)
                return g->seen_ints[rng_below(&g->rng, seen_count(g->n_seen_ints))];
        if (k < 85)
                return PICK(g, special_ints);
        if (rng_one_in(&g->rng, 2))
                return (int32_t) rng_below(&g->rng, 70000);
        return (int32_t) (uint32_t) rng_next(&g->rng);
}

static uint64_t gen_u64(Gen *g) {
        unsigned k = (unsigned) rng_below(&g->rng, 100);
        if (k < 40 && g->n_tids) {
                /* The start time of the thread the 'i' before named, mostly exact. */
                uint64_t s = g->starts[g->last_tid];
                unsigned d = (unsigned) rng_below(&g->rng, 10);
                return d == 0 ? s + 1 : d == 1 ? s - 1 : d == 2 ? s + 1000000 : s;
        }
        if (k < 55 && g->n_tids)
                return g->starts[rng_below(&g->rng, g->n_tids)];
        if (k < 70 && g->n_seen_u64)
                return g->seen_u64[rng_below(&g->rng, seen_count(g->n_seen_u64))];
        if (k < 80 && g->n_addresses)
                return g->addresses[rng_below(&g->rng, g->n_addresses)];
        if (k < 90)
                return PICK(g, special_u64);
        return rng_next(&g->rng);
}

static double gen_double(Gen *g) {
        static const double specials[] = { 0.0, -0.0, 1.0, -1.0, 0.5, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN,
                                           INFINITY, -INFINITY, NAN };
        if (rng_one_in(&g->rng, 2))
                return PICK(g, specials);
        uint64_t bits = rng_next(&g->rng);
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
}

/* A code point sd-bus takes: no surrogate, no noncharacter, no NUL. */
static uint32_t gen_code_point(Gen *g) {
        static const uint32_t odd[] = { 0x80, 0x9f, 0xa0, 0xad, 0x200b, 0x200d, 0x202e, 0x2028, 0xfeff, 0xfffd,
                                        0x1f600, 0x10fffd, 0xe000, 0x0301, 0x4e2d };
        for (;;) {
                uint32_t c;
                switch (rng_below(&g->rng, 4)) {
                case 0: c = PICK(g, odd); break;
                case 1: c = 0x80 + (uint32_t) rng_below(&g->rng, 0x800 - 0x80); break;
                case 2: c = 0x800 + (uint32_t) rng_below(&g->rng, 0x10000 - 0x800); break;
                default: c = 0x10000 + (uint32_t) rng_below(&g->rng, 0x110000 - 0x10000);
                }
                if ((c >= 0xd800 && c <= 0xdfff) || (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe)
                        continue;
                return c;
        }
}

static size_t put_utf8(uint32_t c, char *out) {
        if (c < 0x80) {
                out[0] = (char) c;
                return 1;
        }
        if (c < 0x800) {
                out[0] = (char) (0xc0 | (c >> 6));
                out[1] = (char) (0x80 | (c & 0x3f));
                return 2;
        }
        if (c < 0x10000) {
                out[0] = (char) (0xe0 | (c >> 12));
                out[1] = (char) (0x80 | ((c >> 6) & 0x3f));
                out[2] = (char) (0x80 | (c & 0x3f));
                return 3;
        }
        out[0] = (char) (0xf0 | (c >> 18));
        out[1] = (char) (0x80 | ((c >> 12) & 0x3f));
        out[2] = (char) (0x80 | ((c >> 6) & 0x3f));
        out[3] = (char) (0x80 | (c & 0x3f));
        return 4;
}

static const char *gen_word(Gen *g) {
        unsigned k = (unsigned) rng_below(&g->rng, 10);
        if (k < 6)
                return PICK(g, class_words);
        if (k == 8 && g->n_interfaces)
                return g->interfaces[rng_below(&g->rng, g->n_interfaces)];
        if (k == 9 && g->n_properties)
                return g->properties[rng_below(&g->rng, g->n_properties)];
        return PICK(g, other_words);
}

/* A word changed a little: case, a byte in or out, a prefix, a cut. */
static void mutate(Gen *g, char *s) {
        size_t len = strlen(s);
        size_t at = rng_below(&g->rng, len + 1);
        switch (rng_below(&g->rng, 6)) {
        case 0:
                if (len)
                        s[at % len] ^= 0x20 * (s[at % len] >= 'A');
                break;
        case 1: {
                static const char bytes[] = "\x01\t\n\x1b\x7f -_./:=%\\\"'";
                memmove(s + at + 1, s + at, len - at + 1);
                s[at] = bytes[rng_below(&g->rng, sizeof bytes - 1)];
                break;
        }
        case 2:
                if (at < len)
                        memmove(s + at, s + at + 1, len - at);
                break;
        case 3: {
                const char *p = rng_one_in(&g->rng, 2) ? "qos-class-" : "qos-";
                size_t pl = strlen(p);
                memmove(s + pl, s, len + 1);
                memcpy(s, p, pl);
                break;
        }
        case 4:
                s[at] = 0;
                break;
        default:
                strcat(s, rng_one_in(&g->rng, 2) ? " " : "\n");
        }
}

static const char *gen_string(Gen *g) {
        static const size_t long_lengths[] = { 31, 32, 63, 64, 65, 255, 256, 300, 1024, 4096, STRING_MAX };
        char *s = g->scratch;
        size_t n = 0;
        unsigned k = (unsigned) rng_below(&g->rng, 100);

        if (k < 35)
                return gen_word(g);
        if (k < 50) {
                snprintf(s, 256, "%s", gen_word(g));
                mutate(g, s);
        } else if (k < 60) {
                size_t want = PICK(g, long_lengths);
                const char *w = gen_word(g);
                size_t wl = strlen(w);
                if (want > g->budget / 2)
                        want = g->budget / 2;
                for (n = 0; n < want; n++)
                        s[n] = wl ? w[n % wl] : 'a';
                s[n] = 0;
        } else if (k < 75) {
                size_t want = 1 + rng_below(&g->rng, 40);
                for (n = 0; n < want; n++)
                        s[n] = rng_one_in(&g->rng, 2) ? (char) (1 + rng_below(&g->rng, 31))
                                                      : rng_one_in(&g->rng, 8) ? 0x7f : (char) ('a' + rng_below(&g->rng, 26));
                s[n] = 0;
        } else if (k < 90) {
                size_t want = 1 + rng_below(&g->rng, 24);
                for (size_t i = 0; i < want; i++)
                        n += put_utf8(rng_one_in(&g->rng, 3) ? (uint32_t) ('a' + rng_below(&g->rng, 26))
                                                             : gen_code_point(g), s + n);
                s[n] = 0;
        } else {
                size_t want = rng_below(&g->rng, 41);
                for (n = 0; n < want; n++)
                        s[n] = (char) (0x20 + rng_below(&g->rng, 0x5f));
                s[n] = 0;
        }
        /* A reply that quotes an argument must not look like a leak. */
        if (g->marker && *g->marker && strstr(s, g->marker))
                return "x";
        return s;
}

static const char *gen_object_path(Gen *g) {
        if (rng_below(&g->rng, 4))
                return PICK(g, object_paths);
        char *s = g->scratch;
        size_t n = 0, parts = 1 + rng_below(&g->rng, 4);
        static const char chars[] = "abcXYZ019_";
        for (size_t i = 0; i < parts; i++) {
                s[n++] = '/';
                size_t len = 1 + rng_below(&g->rng, 8);
                for (size_t j = 0; j < len; j++)
                        s[n++] = chars[rng_below(&g->rng, sizeof chars - 1)];
        }
        s[n] = 0;
        return s;
}

/* One random complete type at depth, written at buf; its length. */
static size_t random_type(Gen *g, char *buf, size_t size, unsigned depth) {
        static const char basic[] = "ybnqiuxtdsogiist";
        size_t n = 0;
        unsigned k = (unsigned) rng_below(&g->rng, 100);

        if (size < 12 || depth >= DEPTH_MAX || k < 60) {
                buf[0] = rng_one_in(&g->rng, 40) ? 'h' : basic[rng_below(&g->rng, sizeof basic - 1)];
                return 1;
        }
        if (k < 75) {
                buf[n++] = 'a';
                return n + random_type(g, buf + n, size - n, depth + 1);
        }
        if (k < 85) {
                size_t fields = 1 + rng_below(&g->rng, 3);
                buf[n++] = '(';
                for (size_t i = 0; i < fields && (i == 0 || size - n > 12); i++)
                        n += random_type(g, buf + n, size - n - 1, depth + 1);
                buf[n++] = ')';
                return n;
        }
        if (k < 93) {
                buf[n++] = 'a';
                buf[n++] = '{';
                buf[n++] = basic[rng_below(&g->rng, sizeof basic - 1)];
                n += random_type(g, buf + n, size - n - 1, depth + 1);
                buf[n++] = '}';
                return n;
        }
        buf[0] = 'v';
        return 1;
}

void gen_signature(Gen *g, char *buf, size_t size) {
        size_t n = 0, types = rng_below(&g->rng, 5);
        for (size_t i = 0; i < types && size - n > 16; i++)
                n += random_type(g, buf + n, size - n - 1, 1);
        buf[n] = 0;
}

static const char *gen_signature_value(Gen *g) {
        if (rng_below(&g->rng, 3))
                return PICK(g, signatures);
        gen_signature(g, g->scratch, 256);
        return g->scratch;
}

/* The length of the complete type that starts at s. */
static size_t complete_len(const char *s) {
        if (*s == 'a')
                return 1 + complete_len(s + 1);
        if (*s != '(' && *s != '{')
                return *s ? 1 : 0;
        size_t depth = 0, i = 0;
        do {
                if (s[i] == '(' || s[i] == '{')
                        depth++;
                else if (s[i] == ')' || s[i] == '}')
                        depth--;
                i++;
        } while (depth > 0 && s[i]);
        return i;
}

static size_t gen_count(Gen *g, const char *elem, unsigned depth) {
        static const size_t big[] = { 255, 256, 1024, 1025, 4096, 100000 };
        bool fixed = elem[1] == 0 && strchr("ybnqiuxtd", elem[0]);
        unsigned k = (unsigned) rng_below(&g->rng, 100);
        if (g->budget < 1024 || k < 25)
                return 0;
        if (strchr(elem, 'h'))
                return rng_below(&g->rng, 3);
        if (k < 50)
                return 1;
        if (k < 75)
                return 2 + rng_below(&g->rng, 3);
        if (k < 90 || depth > 1)
                return 5 + rng_below(&g->rng, 28);
        if (fixed)
                return PICK(g, big);
        return 33 + rng_below(&g->rng, 32);
}

/* --- what an argument's name says it is ------------------------------------ */

typedef enum Hint {
        HINT_NONE,
        HINT_TID,       /* a thread or process ID: the caller's own mostly */
        HINT_START,     /* the start time of the thread the argument before named */
        HINT_CLASS,
        HINT_RELPRI,    /* 0 .. -15 */
        HINT_ID,        /* an ID an earlier reply handed out */
        HINT_LOCK,      /* an address in the caller */
        HINT_PROFILE,
        HINT_SOURCE,    /* a focus source's name */
        HINT_INTERFACE,
        HINT_PROPERTY,
} Hint;

static bool ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        return n >= m && strcmp(s + n - m, suffix) == 0;
}

static Hint hint_of(const char *name) {
        if (!name)
                return HINT_NONE;
        if (strstr(name, "start"))
                return HINT_START;
        if (ends_with(name, "tid") || ends_with(name, "pid") || strcmp(name, "pids") == 0)
                return HINT_TID;
        if (strstr(name, "class"))
                return HINT_CLASS;
        if (strstr(name, "priority"))
                return HINT_RELPRI;
        if (ends_with(name, "_id") || strcmp(name, "id") == 0)
                return HINT_ID;
        if (strcmp(name, "lock") == 0)
                return HINT_LOCK;
        if (strcmp(name, "source") == 0)
                return HINT_SOURCE;
        if (strstr(name, "interface"))
                return HINT_INTERFACE;
        if (strstr(name, "property"))
                return HINT_PROPERTY;
        if (strcmp(name, "name") == 0)
                return HINT_PROFILE;
        return HINT_NONE;
}

static bool hinted_int(Gen *g, Hint h, int32_t *ret) {
        if (h == HINT_TID && g->n_tids) {
                /* The caller's own threads mostly: those calls get furthest. */
                g->last_tid = g->n_own && rng_below(&g->rng, 10) < 6 ? rng_below(&g->rng, g->n_own)
                                                                     : rng_below(&g->rng, g->n_tids);
                *ret = g->tids[g->last_tid];
                return true;
        }
        if (h == HINT_RELPRI) {
                *ret = rng_one_in(&g->rng, 2) ? 0 : -(int32_t) rng_below(&g->rng, 16);
                return true;
        }
        return false;
}

static bool hinted_u64(Gen *g, Hint h, uint64_t *ret) {
        if (h == HINT_START && g->n_tids) {
                uint64_t s = g->starts[g->last_tid];
                *ret = rng_below(&g->rng, 10) ? s : rng_one_in(&g->rng, 2) ? s + 1 : s - 1;
                return true;
        }
        if (h == HINT_ID && g->n_seen_ids) {
                *ret = g->seen_ids[rng_below(&g->rng, seen_count(g->n_seen_ids))];
                return true;
        }
        if (h == HINT_LOCK && g->n_addresses) {
                *ret = g->addresses[rng_below(&g->rng, g->n_addresses)];
                return true;
        }
        return false;
}

static const char *hinted_string(Gen *g, Hint h) {
        static const char *const classes[] = { "user-interactive", "user-initiated", "utility", "background",
                                                "ui", "in", "ut", "bg" };
        static const char *const profiles[] = { "throughput", "interactive", "qos", "default" };
        static const char *const sources[] = { "x11", "kwin", "gnome-shell", "fuzz" };
        switch (h) {
        case HINT_CLASS: return PICK(g, classes);
        case HINT_PROFILE: return PICK(g, profiles);
        case HINT_SOURCE: return PICK(g, sources);
        case HINT_INTERFACE:
                return g->n_interfaces ? g->interfaces[rng_below(&g->rng, g->n_interfaces)] : NULL;
        case HINT_PROPERTY:
                return g->n_properties ? g->properties[rng_below(&g->rng, g->n_properties)] : NULL;
        default: return NULL;
        }
}

/* --- appending ----------------------------------------------------------------- */

static void spend(Gen *g, size_t n) {
        g->budget = g->budget > n ? g->budget - n : 0;
}

static int append_type(Gen *g, sd_bus_message *m, const char *t, size_t len, unsigned depth, Hint h);

static int append_all(Gen *g, sd_bus_message *m, const char *sig, size_t len, unsigned depth) {
        for (size_t i = 0; i < len;) {
                size_t n = complete_len(sig + i);
                if (n == 0)
                        return -EINVAL;
                int r = append_type(g, m, sig + i, n, depth, HINT_NONE);
                if (r < 0)
                        return r;
                i += n;
        }
        return 0;
}

static int append_basic(Gen *g, sd_bus_message *m, char type, Hint h) {
        WalkValue v;
        const char *s;

        spend(g, 8);
        switch (type) {
        case 'y': v.y = rng_one_in(&g->rng, 2) ? (uint8_t) rng_next(&g->rng) : (uint8_t) PICK(g, special_ints); break;
        case 'b': v.b = rng_one_in(&g->rng, 2); break;
        case 'n': v.n = (int16_t) (rng_one_in(&g->rng, 2) ? gen_int(g) : (int32_t) rng_next(&g->rng)); break;
        case 'q': v.q = (uint16_t) (rng_one_in(&g->rng, 2) ? gen_int(g) : (int32_t) rng_next(&g->rng)); break;
        case 'i':
                if (!hinted_int(g, h, &v.i))
                        v.i = gen_int(g);
                break;
        case 'u': v.u = (uint32_t) gen_int(g); break;
        case 'x': case 't':
                if (!hinted_u64(g, h, &v.t))
                        v.t = gen_u64(g);
                break;
        case 'd': v.d = gen_double(g); break;
        case 'h':
                if (g->fds_left == 0)
                        return -E2BIG;
                g->fds_left--;
                v.h = g->fd;
                break;
        case 's': case 'o': case 'g':
                s = type == 's' ? hinted_string(g, h) ?: gen_string(g)
                  : type == 'o' ? gen_object_path(g) : gen_signature_value(g);
                spend(g, strlen(s));
                return sd_bus_message_append_basic(m, type, s);
        default:
                return -EINVAL;
        }
        return sd_bus_message_append_basic(m, type, &v);
}

static int append_type(Gen *g, sd_bus_message *m, const char *t, size_t len, unsigned depth, Hint h) {
        char inner[256];
        int r;

        if (t[0] == 'a') {
                const char *elem = t + 1;
                size_t elen = len - 1;
                if (elen >= sizeof inner)
                        return -E2BIG;
                memcpy(inner, elem, elen);
                inner[elen] = 0;
                size_t count = gen_count(g, inner, depth);
                r = sd_bus_message_open_container(m, 'a', inner);
                for (size_t i = 0; r >= 0 && i < count; i++) {
                        if (elem[0] == '{') {
                                char entry[256];
                                memcpy(entry, elem + 1, elen - 2);
                                entry[elen - 2] = 0;
                                r = sd_bus_message_open_container(m, 'e', entry);
                                if (r >= 0)
                                        r = append_all(g, m, entry, elen - 2, depth + 1);
                                if (r >= 0)
                                        r = sd_bus_message_close_container(m);
                        } else
                                r = append_type(g, m, elem, elen, depth + 1, h); /* "pids": TIDs */
                }
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        if (t[0] == '(') {
                memcpy(inner, t + 1, len - 2);
                inner[len - 2] = 0;
                r = sd_bus_message_open_container(m, 'r', inner);
                if (r >= 0)
                        r = append_all(g, m, inner, len - 2, depth + 1);
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        if (t[0] == 'v') {
                size_t n = random_type(g, inner, 64, depth + 1);
                inner[n] = 0;
                r = sd_bus_message_open_container(m, 'v', inner);
                if (r >= 0)
                        r = append_type(g, m, inner, n, depth + 1, HINT_NONE);
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        return append_basic(g, m, t[0], h);
}

int gen_append(Gen *g, sd_bus_message *m, const char *signature, char *const *names, size_t n_names) {
        size_t len = strlen(signature), k = 0;
        g->budget = MESSAGE_BUDGET;
        g->fds_left = FDS_MAX;
        bool hinted = names && rng_below(&g->rng, 5) > 0;
        for (size_t i = 0; i < len; k++) {
                size_t n = complete_len(signature + i);
                if (n == 0)
                        return -EINVAL;
                Hint h = hinted && k < n_names && rng_below(&g->rng, 10) ? hint_of(names[k]) : HINT_NONE;
                int r = append_type(g, m, signature + i, n, 0, h);
                if (r < 0)
                        return r;
                i += n;
        }
        return 0;
}
