/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <grp.h>
#include <ini.h>
#include <pwd.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/cpu-mask.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/parse-bool.h"
#include "config/qosd-conf.h"
#include "config/typo.h"

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
        free(s->efficient_cpus);
        s->efficient_cpus = NULL;
        free(s->performance_cpus);
        s->performance_cpus = NULL;
}

char *settings_default_path(const char *root) {
        char *p;
        bool below = root && *root && strcmp(root, "/") != 0;
        return asprintf(&p, "%s%s", below ? root : "", QOS_ADMIN_DIR "/qosd.conf") < 0 ? NULL : p;
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

/* The readers of one value into its field of Settings (max: the bound of
 * a count, 0 for the others); each sets the field only when the whole value is valid. */
typedef int (*ValueParser)(const char *v, void *field, unsigned max);

static int value_bool(const char *v, void *field, unsigned max) {
        int r = parse_boolean(v);
        if (r >= 0)
                *(bool *) field = r;
        return r;
}

static int value_seconds(const char *v, void *field, unsigned max) {
        unsigned long long n;
        int r = parse_uint(v, 0, 86400, &n);
        if (r >= 0)
                *(uint64_t *) field = n * 1000000ULL;
        return r;
}

static int value_usec(const char *v, void *field, unsigned max) {
        unsigned long long n;
        int r = parse_uint(v, 0, 1000000, &n);
        if (r >= 0)
                *(uint64_t *) field = n;
        return r;
}

static int value_count(const char *v, void *field, unsigned max) {
        unsigned long long n;
        int r = parse_uint(v, 1, max, &n);
        if (r >= 0)
                *(unsigned *) field = (unsigned) n;
        return r;
}

static int value_size(const char *v, void *field, unsigned max) {
        return parse_size(v, field);
}

static int value_uid_min(const char *v, void *field, unsigned max) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (errno || end == v || *end || n > UINT32_MAX)
                return -EINVAL;
        *(unsigned *) field = (unsigned) n;
        return 0;
}

static int value_user(const char *v, void *field, unsigned max) {
        return parse_id(v, false, field);
}

static int value_group(const char *v, void *field, unsigned max) {
        return parse_id(v, true, field);
}

static int value_log_level(const char *v, void *field, unsigned max) {
        int r = log_level_from_string(v);
        if (r >= 0)
                *(int *) field = r;
        return r;
}

/* Profile=: a name, or empty or "none" for none. */
static int value_profile(const char *v, void *field, unsigned max) {
        char **p = field, *copy = NULL;
        if (*v && strcasecmp(v, "none") != 0 && !(copy = strdup(v)))
                return -ENOMEM;
        free(*p);
        *p = copy;
        return 0;
}

static int value_foreign(const char *v, void *field, unsigned max) {
        int r = parse_word_pair(v, "leave", "reapply");
        if (r >= 0)
                *(ForeignPolicy *) field = r ? FOREIGN_REAPPLY : FOREIGN_LEAVE;
        return r;
}

static int value_gate(const char *v, void *field, unsigned max) {
        if (strcasecmp(v, "auto") == 0) {
                *(ForegroundGate *) field = GATE_AUTO;
                return 0;
        }
        int r = parse_boolean(v);
        if (r >= 0)
                *(ForegroundGate *) field = r ? GATE_YES : GATE_NO;
        return r;
}

static int value_class(const char *v, void *field, unsigned max) {
        int c = qclass_from_string(v);
        if (c < 0 || !qclass_is_valid(c))
                return -EINVAL;
        *(QClass *) field = (QClass) c;
        return 0;
}

/* Scheduler= and SchedulerPath=; see bpf-scheduler.h. */
static int value_scheduler(const char *v, void *field, unsigned max) {
        int r = parse_word_pair(v, "none", "qos");
        if (r >= 0)
                *(SchedulerKind *) field = r ? SCHEDULER_QOS : SCHEDULER_NONE;
        return r;
}

static int value_scheduler_path(const char *v, void *field, unsigned max) {
        char **p = field, *copy = NULL;
        /* Absolute: qosd runs it as root, never from a search path. */
        if (*v && *v != '/')
                return -EINVAL;
        if (*v && !(copy = strdup(v)))
                return -ENOMEM;
        free(*p);
        *p = copy;
        return 0;
}

/* EfficientCPUs=, PerformanceCPUs=: a CPU list ("2-3,6"), checked here;
 * empty: the kernel's word. */
static int value_cpu_list(const char *v, void *field, unsigned max) {
        char **p = field, *copy = NULL;
        CpuMask m;
        int r = cpu_mask_parse(v, &m);
        if (r < 0)
                return r == -ERANGE ? -ERANGE : -EINVAL;
        if (!cpu_mask_is_empty(&m) && !(copy = strdup(v)))
                return -ENOMEM;
        free(*p);
        *p = copy;
        return 0;
}

#define FIELD(f) offsetof(Settings, f)

/* Every key of [Daemon], documented in qosd.conf(5); a key not here is
 * answered with the nearest one. */
static const struct {
        const char *key;
        ValueParser parse;
        size_t offset;
        unsigned max;
} settings_keys[] = {
        { "RestoreOnExit", value_bool, FIELD(restore_on_exit), 0 },
        { "ScanIntervalSec", value_seconds, FIELD(scan_interval_usec), 0 },
        { "LogLevel", value_log_level, FIELD(log_level), 0 },
        { "Profile", value_profile, FIELD(profile), 0 },
        { "ForeignChange", value_foreign, FIELD(on_foreign), 0 },
        { "ReceiveBuffer", value_size, FIELD(receive_buffer), 0 },
        { "EventRestUSec", value_usec, FIELD(event_rest_usec), 0 },
        { "WatchConfig", value_bool, FIELD(watch_config), 0 },
        { "SystemdUnits", value_bool, FIELD(systemd_units), 0 },
        { "UserRules", value_bool, FIELD(user_rules), 0 },
        { "UserRulesMinUid", value_uid_min, FIELD(user_rules_min_uid), 0 },
        /* The limits on a user's own rules; see qosd(8). */
        { "UserRulesMaxFiles", value_count, FIELD(user_rules_max_files), 1000000 },
        { "UserRulesMaxRules", value_count, FIELD(user_rules_max_rules), 1000000 },
        { "UserRulesMaxBytes", value_size, FIELD(user_rules_max_bytes), 0 },
        { "UserRulesReloadIntervalSec", value_seconds, FIELD(user_rules_reload_interval_usec), 0 },
        /* The broker. */
        { "ForegroundGate", value_gate, FIELD(foreground_gate), 0 },
        { "ForegroundUser", value_user, FIELD(foreground_uid), 0 },
        { "ForegroundGroup", value_group, FIELD(foreground_gid), 0 },
        { "RequestMaxClass", value_class, FIELD(request_max_class), 0 },
        { "RequestRate", value_count, FIELD(request_rate), 100000 },
        { "RequestBurst", value_count, FIELD(request_burst), 100000 },
        { "ListTasksMax", value_count, FIELD(list_tasks_max), 4194304 },
        { "Scheduler", value_scheduler, FIELD(scheduler), 0 },
        { "SchedulerPath", value_scheduler_path, FIELD(scheduler_path), 0 },
        { "EfficientCPUs", value_cpu_list, FIELD(efficient_cpus), 0 },
        { "PerformanceCPUs", value_cpu_list, FIELD(performance_cpus), 0 },
};

/* -ENOKEY for a key that is not a setting. */
static int set_key(Settings *s, const char *key, const char *value) {
        for (size_t i = 0; i < ELEMENTSOF(settings_keys); i++)
                if (strcasecmp(key, settings_keys[i].key) == 0)
                        return settings_keys[i].parse(value, (char *) s + settings_keys[i].offset,
                                                      settings_keys[i].max);
        return -ENOKEY;
}

const char *settings_nearest_key(const char *key) {
        const char *best = NULL;
        unsigned best_distance = TYPO_MAX + 1;
        for (size_t i = 0; i < ELEMENTSOF(settings_keys); i++) {
                unsigned d = typo_distance(key, settings_keys[i].key);
                if (d < best_distance) {
                        best = settings_keys[i].key;
                        best_distance = d;
                }
        }
        return best;
}

typedef struct Ctx {
        Settings *s;
        const char *path;
        FILE *f;
        int errors;
        int line;
} Ctx;

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
                if (typo_of(section, "Daemon"))
                        log_warning("%s:%d: unknown section [%s]; did you mean [Daemon]? Ignored", c->path, line,
                                    section);
                else
                        log_warning("%s:%d: unknown section [%s], ignored", c->path, line, section);
                return 1;
        }
        int r = set_key(c->s, key, value);
        const char *near = r == -ENOKEY ? settings_nearest_key(key) : NULL;
        if (near)
                log_warning("%s:%d: unknown setting %s=; did you mean %s=? Ignored", c->path, line, key, near);
        else if (r == -ENOKEY)
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
