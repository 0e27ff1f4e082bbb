/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <grp.h>
#include <ini.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "macro.h"
#include "parse-bool.h"
#include "qosd-conf.h"

void settings_init(Settings *s) {
        *s = (Settings) {
                .restore_on_exit = true,
                .scan_interval_usec = 60 * 1000000ULL,
                .log_level = LOG_INFO,
                .on_foreign = FOREIGN_LEAVE,
                .receive_buffer = 16 << 20,
                .event_rest_usec = 250,
                .watch_config = true,
                .user_rules = true,
                .systemd_units = true,
                .user_rules_min_uid = 1000,
                .user_rules_max_files = 256,
                .user_rules_max_rules = 1024,
                .user_rules_max_bytes = 1 << 20,
                .user_rules_reload_interval_usec = 1000000,
                .foreground_gate = GATE_AUTO,
                .foreground_uid = (uid_t) -1,
                .foreground_gid = (gid_t) -1,
                .request_max_class = QCLASS_USER_INTERACTIVE,
                .request_rate = 20,
                .request_burst = 50,
                .list_tasks_max = 16384,
        };
}

void settings_done(Settings *s) {
        free(s->profile);
        s->profile = NULL;
        free(s->scheduler_path);
        s->scheduler_path = NULL;
}

const char *settings_scheduler_path(const Settings *s) {
        return s->scheduler_path ?: SCHEDULER_PATH_DEFAULT;
}

/* One of two words: 0 for the first, 1 for the second. */
static int parse_word_pair(const char *v, const char *first, const char *second) {
        if (strcasecmp(v, first) == 0)
                return 0;
        return strcasecmp(v, second) == 0 ? 1 : -EINVAL;
}

/* Scheduler= and SchedulerPath=; see bpf-scheduler.h. */
static int set_scheduler_key(Settings *s, const char *key, const char *value) {
        if (strcasecmp(key, "Scheduler") == 0) {
                int r = parse_word_pair(value, "none", "qos");
                if (r >= 0)
                        s->scheduler = r ? SCHEDULER_QOS : SCHEDULER_NONE;
                return r;
        }
        if (strcasecmp(key, "SchedulerPath") == 0) {
                char *p = NULL;
                /* Absolute: qosd runs it as root, never from a search path. */
                if (*value && *value != '/')
                        return -EINVAL;
                if (*value && !(p = strdup(value)))
                        return -ENOMEM;
                free(s->scheduler_path);
                s->scheduler_path = p;
                return 0;
        }
        return -ENOKEY;
}

/* "16M", "512K", "1048576". */
static int parse_size(const char *v, int *ret) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        if (errno || end == v)
                return -EINVAL;
        if (*end == 'K' || *end == 'k')
                n <<= 10, end++;
        else if (*end == 'M' || *end == 'm')
                n <<= 20, end++;
        if (*end || n < 4096 || n > (1u << 30))
                return -ERANGE;
        *ret = (int) n;
        return 0;
}

static int parse_uint(const char *v, unsigned long long min, unsigned long long max,
                      unsigned long long *ret) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        if (errno || end == v || *end || *v == '-' || n < min || n > max)
                return -EINVAL;
        *ret = n;
        return 0;
}

static int parse_seconds(const char *v, uint64_t *ret) {
        unsigned long long n;
        int r = parse_uint(v, 0, 86400, &n);
        if (r >= 0)
                *ret = n * 1000000ULL;
        return r;
}

static int parse_usec(const char *v, uint64_t *ret) {
        unsigned long long n;
        int r = parse_uint(v, 0, 1000000, &n);
        if (r >= 0)
                *ret = n;
        return r;
}

static int parse_count(const char *v, unsigned max, unsigned *ret) {
        unsigned long long n;
        int r = parse_uint(v, 1, max, &n);
        if (r >= 0)
                *ret = (unsigned) n;
        return r;
}

/* A name or a number; names are looked up when qosd starts. */
static int parse_id(const char *v, bool group, unsigned *ret) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (!errno && end != v && !*end && n < (unsigned) -1) {
                *ret = (unsigned) n;
                return 0;
        }
        if (group) {
                struct group *g = getgrnam(v);
                if (!g)
                        return -EINVAL;
                *ret = g->gr_gid;
        } else {
                struct passwd *p = getpwnam(v);
                if (!p)
                        return -EINVAL;
                *ret = p->pw_uid;
        }
        return 0;
}

/* The limits on a user's own rules; see qosd(8). */
static int set_user_rules_key(Settings *s, const char *key, const char *value) {
        if (strcasecmp(key, "UserRulesMaxFiles") == 0)
                return parse_count(value, 1000000, &s->user_rules_max_files);
        if (strcasecmp(key, "UserRulesMaxRules") == 0)
                return parse_count(value, 1000000, &s->user_rules_max_rules);
        if (strcasecmp(key, "UserRulesMaxBytes") == 0)
                return parse_size(value, &s->user_rules_max_bytes);
        if (strcasecmp(key, "UserRulesReloadIntervalSec") == 0)
                return parse_seconds(value, &s->user_rules_reload_interval_usec);
        return -ENOKEY;
}

static int set_broker_key(Settings *s, const char *key, const char *value) {
        if (strcasecmp(key, "ForegroundGate") == 0) {
                if (strcasecmp(value, "auto") == 0)
                        s->foreground_gate = GATE_AUTO;
                else {
                        int r = parse_boolean(value);
                        if (r < 0)
                                return r;
                        s->foreground_gate = r ? GATE_YES : GATE_NO;
                }
                return 0;
        }
        if (strcasecmp(key, "ForegroundUser") == 0)
                return parse_id(value, false, &s->foreground_uid);
        if (strcasecmp(key, "ForegroundGroup") == 0)
                return parse_id(value, true, &s->foreground_gid);
        if (strcasecmp(key, "RequestMaxClass") == 0) {
                int c = qclass_from_string(value);
                if (c < 0 || !qclass_is_valid(c))
                        return -EINVAL;
                s->request_max_class = (QClass) c;
                return 0;
        }
        if (strcasecmp(key, "RequestRate") == 0)
                return parse_count(value, 100000, &s->request_rate);
        if (strcasecmp(key, "RequestBurst") == 0)
                return parse_count(value, 100000, &s->request_burst);
        if (strcasecmp(key, "ListTasksMax") == 0)
                return parse_count(value, 4194304, &s->list_tasks_max);
        return set_scheduler_key(s, key, value);
}

typedef struct Ctx {
        Settings *s;
        const char *path;
        FILE *f;
        int errors;
        int line;
} Ctx;

static int set_key(Settings *s, const char *key, const char *value) {
        int r;
        if (strcasecmp(key, "RestoreOnExit") == 0) {
                r = parse_boolean(value);
                if (r >= 0)
                        s->restore_on_exit = r;
                return r;
        }
        if (strcasecmp(key, "ScanIntervalSec") == 0)
                return parse_seconds(value, &s->scan_interval_usec);
        if (strcasecmp(key, "LogLevel") == 0) {
                r = log_level_from_string(value);
                if (r >= 0)
                        s->log_level = r;
                return r;
        }
        if (strcasecmp(key, "Profile") == 0) {
                char *p = NULL;
                if (*value && strcasecmp(value, "none") != 0 && !(p = strdup(value)))
                        return -ENOMEM;
                free(s->profile);
                s->profile = p;
                return 0;
        }
        if (strcasecmp(key, "ForeignChange") == 0) {
                r = parse_word_pair(value, "leave", "reapply");
                if (r >= 0)
                        s->on_foreign = r ? FOREIGN_REAPPLY : FOREIGN_LEAVE;
                return r;
        }
        if (strcasecmp(key, "ReceiveBuffer") == 0)
                return parse_size(value, &s->receive_buffer);
        if (strcasecmp(key, "EventRestUSec") == 0)
                return parse_usec(value, &s->event_rest_usec);
        if (strcasecmp(key, "WatchConfig") == 0) {
                r = parse_boolean(value);
                if (r >= 0)
                        s->watch_config = r;
                return r;
        }
        if (strcasecmp(key, "SystemdUnits") == 0) {
                r = parse_boolean(value);
                if (r >= 0)
                        s->systemd_units = r;
                return r;
        }
        if (strcasecmp(key, "UserRules") == 0) {
                r = parse_boolean(value);
                if (r >= 0)
                        s->user_rules = r;
                return r;
        }
        if (strcasecmp(key, "UserRulesMinUid") == 0) {
                char *end;
                errno = 0;
                unsigned long v = strtoul(value, &end, 10);
                if (errno || end == value || *end || v > UINT32_MAX)
                        return -EINVAL;
                s->user_rules_min_uid = (unsigned) v;
                return 0;
        }
        r = set_user_rules_key(s, key, value);
        return r == -ENOKEY ? set_broker_key(s, key, value) : r;
}

/* Debian's inih does not pass line numbers to the handler; inih calls it
 * while processing the line it just read, so counting reads gives it. */
static char *reader(char *str, int num, void *stream) {
        Ctx *c = stream;
        char *r = fgets(str, num, c->f);
        if (r)
                c->line++;
        return r;
}

static int handler(void *user, const char *section, const char *key, const char *value) {
        Ctx *c = user;
        int line = c->line;
        if (strcasecmp(section, "Daemon") != 0) {
                log_warning("%s:%d: unknown section [%s], ignored", c->path, line, section);
                return 1;
        }
        int r = set_key(c->s, key, value);
        if (r == -ENOKEY)
                log_warning("%s:%d: unknown setting %s=, ignored", c->path, line, key);
        else if (r < 0) {
                log_error("%s:%d: invalid value for %s=: \"%s\", ignored", c->path, line, key, value);
                c->errors++;
        }
        return 1; /* keep going: one bad line must not lose the others */
}

int settings_load(Settings *s, const char *path) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        Ctx c = { .s = s, .path = path, .f = f };

        if (!f) {
                if (errno == ENOENT)
                        return 0;
                return log_error_errno(errno, "%s: cannot open: %m", path);
        }
        int r = ini_parse_stream(reader, &c, handler, &c);
        if (r > 0) {
                log_error("%s:%d: syntax error", path, r);
                c.errors++;
        } else if (r < 0)
                return log_error_errno(EIO, "%s: cannot parse", path);
        return c.errors;
}
