/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf-scheduler.h"
#include "broker.h"
#include "log.h"
#include "macro.h"
#include "reload.h"
#include "scan.h"

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

/* path is dir or in it: a refused directory is reported as itself. */
static bool in_dir(const char *path, const char *dir) {
        size_t n = strlen(dir);
        return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
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

/* What the loader reads: the system directories and the users' of the
 * last listing, each user within the limits of qosd.conf. */
static void sources(const Manager *m, RuleSources *ret) {
        user_dirs_sources(&m->user_dirs, m->root, ret);
        ret->user_limits = (UserLimits) {
                .max_files = m->settings.user_rules_max_files,
                .max_rules = m->settings.user_rules_max_rules,
                .max_bytes = (size_t) m->settings.user_rules_max_bytes,
        };
}

static void log_diags(const DiagList *diag) {
        for (size_t i = 0; i < diag->n; i++)
                log_full_errno(diag->items[i].level, 0, "%s:%u: %s", diag->items[i].path,
                               diag->items[i].line, diag->items[i].message);
}

int reload_rules(Manager *m, bool initial) {
        RuleSources src;
        DiagList diag = {};
        RuleSet *rs = NULL;
        char *msg = NULL;
        int r;

        /* The one setting a reload reads again: the scheduler, which an
         * administrator may want to take away without stopping qosd.
         * First, so that a rule file with errors does not hold it up. */
        if (!initial)
                bpf_scheduler_reload(m);
        if (m->settings.user_rules && !m->user_rules_off) {
                r = user_dirs_collect(&m->user_dirs, m->settings.user_rules_min_uid);
                if (r < 0)
                        log_warning_errno(r, "cannot list the users' rule directories: %m");
        } else
                user_dirs_free(&m->user_dirs);
        sources(m, &src);
        /* Watch anew before reading, not after: a change made while the
         * directories are read then comes as an event and reloads again,
         * where one made before new watches replaced the old would be
         * lost with the old watches' queue. This load reads every user's
         * directory too: their pending reloads have nothing left to do.
         * Users may have come or gone. */
        if (!initial)
                reload_watch_refresh(m);

        r = ruleset_load(&src, &rs, &diag);
        if (r < 0) {
                diag_list_clear(&diag);
                m->counters.reload_failures++;
                set_status(m, false, strdup(strerror(-r)));
                return log_error_errno(r, "loading rules failed: %m");
        }
        log_diags(&diag);

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

int reload_user_rules(Manager *m, uid_t uid) {
        RuleSources src;
        DiagList diag = {};
        bool known = false;
        int r;

        for (size_t i = 0; i < m->user_dirs.n && !known; i++)
                known = m->user_dirs.dirs[i].uid == uid;
        if (!m->rules || !known)
                return 0; /* its directory is gone since the last full load */
        sources(m, &src);
        r = ruleset_reload_user(m->rules, &src, uid, &diag);
        log_diags(&diag);
        diag_list_clear(&diag);
        release_load_memory();
        if (r < 0)
                return log_error_errno(r, "reloading the rules of uid %u failed: %m", (unsigned) uid);
        m->counters.user_reloads++;
        log_info("rules of uid %u reloaded: %zu rules of theirs, %zu in all", (unsigned) uid,
                 ruleset_user_size(m->rules, uid), ruleset_size(m->rules));
        r = scan_user(m, uid, "the user's rules reloaded");
        broker_reevaluate(m, "the rules changed (MaxClass)");
        return r;
}

