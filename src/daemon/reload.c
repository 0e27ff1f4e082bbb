/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>

#include "broker.h"
#include "log.h"
#include "macro.h"
#include "qos-config.h"
#include "reload.h"
#include "scan.h"

/* Editors write a file in several steps; wait until they are done. */
#define SETTLE_USEC (200 * 1000)
#define MAX_WATCHES 64

/* The system rule directories the loader reads, vendor < admin < runtime
 * (see qos.d(5)). */
static const char *const rule_dirs[] = {
        QOS_VENDOR_DIR "/" QOS_APPS_SUBDIR,
        QOS_ADMIN_DIR "/" QOS_APPS_SUBDIR,
        QOS_RUNTIME_DIR "/" QOS_APPS_SUBDIR,
};

struct Reloader {
        sd_event_source *watches[MAX_WATCHES];
        size_t n_watches;
        sd_event_source *settle;
};

static uint64_t now_realtime(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

/* Errors as one message for D-Bus and `qosctl status`, one line each. */
static char *format_diags(const DiagList *diag, int level) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        for (size_t i = 0; i < diag->n; i++)
                if (diag->items[i].level <= level)
                        fprintf(f, "%s:%u: %s\n", diag->items[i].path, diag->items[i].line,
                                diag->items[i].message);
        fclose(f);
        if (len > 0 && buf[len - 1] == '\n')
                buf[len - 1] = '\0';
        return buf;
}

static void set_status(Manager *m, bool ok, char *message) {
        free(m->last_reload.message);
        m->last_reload = (ReloadStatus) { .time_usec = now_realtime(), .ok = ok, .message = message };
}

static bool in_dir(const char *path, const char *dir) {
        size_t n = strlen(dir);
        return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Errors in the system directories reject a reload. A user's broken file
 * is skipped like at start: it must not let any user block the
 * administrator's reloads. */
static size_t system_errors(const DiagList *diag, const UserDirs *users) {
        size_t n = 0;
        for (size_t i = 0; i < diag->n; i++) {
                if (diag->items[i].level > LOG_ERR)
                        continue;
                bool user = false;
                for (size_t u = 0; u < users->n && !user; u++)
                        user = in_dir(diag->items[i].path, users->dirs[u].dir);
                n += !user;
        }
        return n;
}

/* Loading frees its temporaries (directory listings, file texts, parser
 * state) between the pages the rule set keeps; 20,000 rule files leave
 * megabytes of such holes. Hand the free pages back rather than keep the
 * load's peak for the daemon's lifetime. */
static void release_load_memory(void) {
        (void) malloc_trim(0);
}

int reload_rules(Manager *m, bool initial) {
        RuleSources src;
        DiagList diag = {};
        RuleSet *rs = NULL;
        char *msg = NULL;
        int r;

        if (m->settings.user_rules && !m->user_rules_off) {
                r = user_dirs_collect(&m->user_dirs, m->settings.user_rules_min_uid);
                if (r < 0)
                        log_warning_errno(r, "cannot list the users' rule directories: %m");
        } else
                user_dirs_free(&m->user_dirs);
        user_dirs_sources(&m->user_dirs, m->root, &src);

        r = ruleset_load(&src, &rs, &diag);
        if (r < 0) {
                diag_list_clear(&diag);
                m->counters.reload_failures++;
                set_status(m, false, strdup(strerror(-r)));
                return log_error_errno(r, "loading rules failed: %m");
        }
        for (size_t i = 0; i < diag.n; i++)
                log_full_errno(diag.items[i].level, 0, "%s:%u: %s", diag.items[i].path,
                               diag.items[i].line, diag.items[i].message);

        size_t errors = diag_list_count(&diag, LOG_ERR);
        if (system_errors(&diag, &m->user_dirs) > 0 && !initial) {
                msg = format_diags(&diag, LOG_ERR);
                diag_list_clear(&diag);
                ruleset_free(rs);
                release_load_memory();
                m->counters.reload_failures++;
                log_error("reload: %zu error(s); keeping the %zu rules loaded before", errors,
                          m->rules ? ruleset_size(m->rules) : 0);
                set_status(m, false, msg);
                return -EINVAL;
        }

        RuleSet *old = m->rules;
        m->rules = rs;
        ruleset_free(old);
        m->counters.reloads++;
        if (errors > 0)
                msg = format_diags(&diag, LOG_ERR);
        else if (asprintf(&msg, "loaded %zu rules", ruleset_size(rs)) < 0)
                msg = NULL;
        set_status(m, errors == 0, msg);
        diag_list_clear(&diag);
        release_load_memory();
        log_info("rules: %zu loaded%s", ruleset_size(rs),
                 errors ? " (files with errors skipped)" : "");

        /* The registry outlives the swap: entries copy their origin text. */
        if (initial)
                return 0;
        r = scan_all(m, "rules reloaded");
        broker_reevaluate(m, "the rules changed (MaxClass)");
        return r;
}

static int on_settled(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        log_info("rule directories changed, reloading");
        reload_rules(m, false);
        /* Directories may have appeared or gone: watch what exists now. */
        reload_unwatch(m);
        reload_watch(m);
        return 0;
}

/* Rule files, drop-in directories and apps.d itself; not the state file
 * and qosd.conf that share the parent directories. */
static bool relevant(const struct inotify_event *ev) {
        if (ev->len == 0)
                return true; /* the watched directory itself went away */
        size_t n = strlen(ev->name);
        if (strcmp(ev->name, "qosd.conf") == 0)
                return false;
        return (n > 5 && strcmp(ev->name + n - 5, ".conf") == 0) ||
               (n > 2 && strcmp(ev->name + n - 2, ".d") == 0);
}

static int on_inotify(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        Manager *m = userdata;
        Reloader *rl = m->reloader;
        int r;

        if (!rl || !relevant(ev))
                return 0;
        if (rl->settle) {
                r = sd_event_source_set_time_relative(rl->settle, SETTLE_USEC);
                if (r >= 0)
                        r = sd_event_source_set_enabled(rl->settle, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time_relative(m->event, &rl->settle, CLOCK_MONOTONIC,
                                               SETTLE_USEC, 0, on_settled, m);
        if (r < 0)
                log_warning_errno(r, "cannot schedule reload: %m");
        return 0;
}

static void add_watch(Manager *m, Reloader *rl, const char *path) {
        const uint32_t mask = IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
        if (rl->n_watches >= MAX_WATCHES)
                return;
        int r = sd_event_add_inotify(m->event, &rl->watches[rl->n_watches], path, mask, on_inotify, m);
        if (r >= 0)
                rl->n_watches++;
        else if (r != -ENOENT && r != -ENOTDIR)
                log_debug_errno(r, "cannot watch %s: %m", path);
}

/* Drop-in directories (NAME.conf.d/) inside a rule directory. */
static void add_dropin_watches(Manager *m, Reloader *rl, const char *dir) {
        _cleanup_closedir_ DIR *d = opendir(dir);
        struct dirent *de;
        if (!d)
                return;
        while ((de = readdir(d))) {
                size_t n = strlen(de->d_name);
                if (de->d_type != DT_DIR || n < 3 || strcmp(de->d_name + n - 2, ".d") != 0)
                        continue;
                _cleanup_free_ char *p = NULL;
                if (asprintf(&p, "%s/%s", dir, de->d_name) >= 0)
                        add_watch(m, rl, p);
        }
}

int reload_watch(Manager *m) {
        Reloader *rl = m->reloader;
        if (!rl) {
                rl = m->reloader = calloc(1, sizeof *rl);
                if (!rl)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < ELEMENTSOF(rule_dirs); i++) {
                _cleanup_free_ char *dir = manager_path(m, rule_dirs[i]);
                if (!dir)
                        return -ENOMEM;
                add_watch(m, rl, dir);
                add_dropin_watches(m, rl, dir);
                /* The parent, to notice apps.d being created or replaced. */
                char *slash = strrchr(dir, '/');
                if (slash && slash != dir) {
                        *slash = '\0';
                        add_watch(m, rl, dir);
                }
        }
        /* A user's new ~/.config/qos/apps.d is found at the next reload or
         * periodic scan; the ones that exist are watched like the others. */
        for (size_t i = 0; i < m->user_dirs.n; i++) {
                add_watch(m, rl, m->user_dirs.dirs[i].dir);
                add_dropin_watches(m, rl, m->user_dirs.dirs[i].dir);
        }
        return 0;
}

void reload_unwatch(Manager *m) {
        Reloader *rl = m->reloader;
        if (!rl)
                return;
        for (size_t i = 0; i < rl->n_watches; i++)
                sd_event_source_disable_unref(rl->watches[i]);
        rl->n_watches = 0;
}

void reload_free(Manager *m) {
        reload_unwatch(m);
        if (m->reloader)
                sd_event_source_disable_unref(m->reloader->settle);
        free(m->reloader);
        m->reloader = NULL;
}
