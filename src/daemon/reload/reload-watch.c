/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which changes reload what, and when. Every watch belongs to a source:
 * the system directories, or one user's. A change in the system
 * directories reloads everything once they have been quiet for a moment;
 * a change in a user's directory reloads only that user's rules, at most
 * once per UserRulesReloadIntervalSec=. The two never share a timer, so
 * no user can postpone the administrator's reload or cause a full one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/macro.h"
#include "qos-config.h"
#include "reload/reload.h"

/* Editors write a file in several steps; wait until they are done. */
#define SETTLE_USEC (200 * 1000)
/* After a user's reload, the next one waits at least this many times the
 * CPU time it took: however large a user makes their directory (it is read
 * whole, to load the first files by name), their reloads take at most a
 * twentieth of a CPU. */
#define USER_RELOAD_COST_FACTOR 19
#define OVERFLOW_NOTE_USEC (1000 * 1000)
#define MAX_SYSTEM_WATCHES 64
/* A user's apps.d and this many of its drop-in directories. */
#define MAX_USER_DROPIN_WATCHES 16
/* sd-event keeps one inotify queue per priority. The users' watches have
 * their own, so that a user who floods it until it overflows (an overflow
 * says only "something changed") never makes a system reload due, and
 * the system's changes are read first. */
#define USER_WATCH_PRIORITY (SD_EVENT_PRIORITY_NORMAL + 1)

/* The system rule directories the loader reads, vendor < admin < runtime
 * (see qos.d(5)). */
static const char *const rule_dirs[] = {
        QOS_VENDOR_DIR "/" QOS_APPS_SUBDIR,
        QOS_ADMIN_DIR "/" QOS_APPS_SUBDIR,
        QOS_RUNTIME_DIR "/" QOS_APPS_SUBDIR,
};

typedef struct Watch {
        Manager *m;
        sd_event_source *source;
        bool user;
        uid_t uid;
} Watch;

/* One user's reload: due while timer is enabled. */
typedef struct UserReload {
        Manager *m;
        uid_t uid;
        sd_event_source *timer;
        uint64_t last_usec;     /* CLOCK_MONOTONIC of the user's last reload; 0: none */
        uint64_t cost_usec;     /* qosd's CPU time for it */
        uint64_t reloads;       /* UserReloads as this user reads it */
} UserReload;

struct Reloader {
        Watch **watches;
        size_t n_watches;
        sd_event_source *settle; /* the system directories' */
        UserReload **users;     /* one for each user that changed something */
        size_t n_users;
        uint64_t overflow_noted[2]; /* CLOCK_MONOTONIC; [user]: the last overflow said */
};

static Reloader *reloader(Manager *m) {
        if (!m->reloader)
                m->reloader = calloc(1, sizeof *m->reloader);
        return m->reloader;
}

static int on_settled(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        log_info("rule directories changed, reloading");
        reload_rules(m, false);
        return 0;
}

static void rewatch_user(Manager *m, uid_t uid);

static int on_user_due(sd_event_source *s, uint64_t usec, void *userdata) {
        UserReload *u = userdata;
        Manager *m = u->m;
        uint64_t now;

        sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        u->last_usec = now ?: 1;
        log_info("rule directory of uid %u changed, reloading its rules", (unsigned) u->uid);
        /* Its drop-in directories may have come or gone. Watched anew
         * before the read, so that a change made meanwhile reloads again
         * (reload_rules does the same). */
        uint64_t before = m->counters.user_reloads, cpu = clock_usec(CLOCK_THREAD_CPUTIME_ID);
        rewatch_user(m, u->uid);
        (void) reload_user_rules(m, u->uid);
        u->cost_usec = clock_usec(CLOCK_THREAD_CPUTIME_ID) - cpu;
        u->reloads += m->counters.user_reloads - before;
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
               (n > 5 && strcmp(ev->name + n - 5, ".json") == 0) ||
               (n > 2 && strcmp(ev->name + n - 2, ".d") == 0);
}

/* Settle: every change moves the reload 200 ms further, until the
 * directories are quiet. Only the system's changes come here. */
static void system_changed(Manager *m, Reloader *rl) {
        int r;
        if (rl->settle) {
                r = sd_event_source_set_time_relative(rl->settle, SETTLE_USEC);
                if (r >= 0)
                        r = sd_event_source_set_enabled(rl->settle, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time_relative(m->event, &rl->settle, CLOCK_MONOTONIC, SETTLE_USEC, 0,
                                               on_settled, m);
        if (r < 0)
                log_warning_errno(r, "cannot schedule reload: %m");
}

static UserReload *user_reload(Manager *m, Reloader *rl, uid_t uid) {
        for (size_t i = 0; i < rl->n_users; i++)
                if (rl->users[i]->uid == uid)
                        return rl->users[i];
        UserReload **v = reallocarray(rl->users, rl->n_users + 1, sizeof *v);
        if (!v)
                return NULL;
        rl->users = v;
        UserReload *u = calloc(1, sizeof *u);
        if (!u)
                return NULL;
        *u = (UserReload) { .m = m, .uid = uid };
        return rl->users[rl->n_users++] = u;
}

/* A user's change: one reload 200 ms after the first change, or one
 * interval after the user's last reload if that is later (and 20 times
 * that reload's CPU time, if longer). Changes while it is due move
 * nothing: that reload reads them. However fast a user writes, their
 * rules reload at most once per interval. */
static void user_changed(Manager *m, Reloader *rl, uid_t uid) {
        UserReload *u = user_reload(m, rl, uid);
        uint64_t now, at;
        int enabled = SD_EVENT_OFF, r;

        if (!u) {
                log_error("out of memory");
                return;
        }
        if (u->timer && sd_event_source_get_enabled(u->timer, &enabled) >= 0 && enabled != SD_EVENT_OFF)
                return;
        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return;
        at = now + SETTLE_USEC;
        if (u->last_usec > 0) {
                uint64_t gap = m->settings.user_rules_reload_interval_usec,
                         by_cost = u->cost_usec * (USER_RELOAD_COST_FACTOR + 1);
                if (by_cost > gap)
                        gap = by_cost;
                if (u->last_usec + gap > at)
                        at = u->last_usec + gap;
        }
        if (u->timer) {
                r = sd_event_source_set_time(u->timer, at);
                if (r >= 0)
                        r = sd_event_source_set_enabled(u->timer, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time(m->event, &u->timer, CLOCK_MONOTONIC, at, 0, on_user_due, u);
        if (r < 0)
                log_warning_errno(r, "cannot schedule the reload of uid %u's rules: %m", (unsigned) uid);
}

/* An overflow reaches every watch of its queue, one dispatch each (a user
 * may have 17, and all users share a queue): say it once. */
static void note_overflow(Manager *m, Reloader *rl, bool user) {
        uint64_t now = 0;
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (rl->overflow_noted[user] && now < rl->overflow_noted[user] + OVERFLOW_NOTE_USEC)
                return;
        rl->overflow_noted[user] = now;
        log_notice("the %s rule directories' inotify queue overflowed: reloading %s", user ? "users'" : "system",
                   user ? "the rules of each user watched" : "everything");
}

static int on_inotify(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        Watch *w = userdata;
        Reloader *rl = w->m->reloader;

        if (!rl || !relevant(ev))
                return 0;
        if (ev->mask & IN_Q_OVERFLOW)
                note_overflow(w->m, rl, w->user);
        if (w->user)
                user_changed(w->m, rl, w->uid);
        else
                system_changed(w->m, rl);
        return 0;
}

/* path, or with fd >= 0 the directory fd is (path only names it). */
static void add_watch(Manager *m, Reloader *rl, int fd, const char *path, bool user, uid_t uid) {
        const uint32_t mask = IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
        Watch **v = reallocarray(rl->watches, rl->n_watches + 1, sizeof *v);
        Watch *w = v ? calloc(1, sizeof *w) : NULL;
        if (v)
                rl->watches = v;
        if (!w) {
                log_error("out of memory");
                return;
        }
        *w = (Watch) { .m = m, .user = user, .uid = uid };
        int r = fd >= 0 ? sd_event_add_inotify_fd(m->event, &w->source, fd, mask, on_inotify, w)
                        : sd_event_add_inotify(m->event, &w->source, path, mask, on_inotify, w);
        if (r >= 0 && user)
                r = sd_event_source_set_priority(w->source, USER_WATCH_PRIORITY);
        if (r < 0) {
                w->source = sd_event_source_disable_unref(w->source);
                if (r != -ENOENT && r != -ENOTDIR)
                        log_debug_errno(r, "cannot watch %s: %m", path);
                free(w);
                return;
        }
        rl->watches[rl->n_watches++] = w;
}

/* A directory of a user's, opened as the loader opens it (user_open():
 * never through a link out of the user's home); or -1. */
static int open_user_dir(Manager *m, uid_t uid, const char *path, int flags) {
        int fd = user_open(uid, path, flags | O_DIRECTORY, &m->user_dirs);
        return fd < 0 ? -1 : fd;
}

/* Drop-in directories (NAME.conf.d/) inside a rule directory, up to max. */
static void add_dropin_watches(Manager *m, Reloader *rl, const char *dir, bool user, uid_t uid, size_t max) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        size_t n = 0;
        if (user) {
                int fd = open_user_dir(m, uid, dir, O_RDONLY);
                if (fd >= 0 && !(d = fdopendir(fd)))
                        close(fd);
        } else
                d = opendir(dir);
        while (d && n < max && (de = readdir(d))) {
                size_t len = strlen(de->d_name);
                if (de->d_type != DT_DIR || len < 3 || strcmp(de->d_name + len - 2, ".d") != 0)
                        continue;
                _cleanup_free_ char *p = NULL;
                if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
                        continue;
                _cleanup_close_ int fd = user ? open_user_dir(m, uid, p, O_PATH) : -1;
                if (!user || fd >= 0) {
                        add_watch(m, rl, fd, p, user, uid);
                        n++;
                }
        }
}

/* A user's directory, with the user's file-system identity: qosd watches
 * (and lists) only what the user could read, and only in the user's home. */
static void add_user_watches(Manager *m, Reloader *rl, uid_t uid, const char *dir) {
        if (user_fs_enter(uid, &m->user_dirs) < 0)
                return;
        _cleanup_close_ int fd = open_user_dir(m, uid, dir, O_PATH);
        if (fd >= 0) {
                add_watch(m, rl, fd, dir, true, uid);
                add_dropin_watches(m, rl, dir, true, uid, MAX_USER_DROPIN_WATCHES);
        }
        user_fs_leave(uid, &m->user_dirs);
}

static void free_watch(Watch *w) {
        sd_event_source_disable_unref(w->source);
        free(w);
}

/* Drop the watches for which drop(w) holds, keeping the order. */
static void unwatch_if(Reloader *rl, bool (*drop)(const Watch *w, uid_t uid), uid_t uid) {
        size_t k = 0;
        for (size_t i = 0; i < rl->n_watches; i++) {
                if (drop(rl->watches[i], uid))
                        free_watch(rl->watches[i]);
                else
                        rl->watches[k++] = rl->watches[i];
        }
        rl->n_watches = k;
}

static bool any_watch(const Watch *w, uid_t uid) {
        return true;
}

static bool watch_of_user(const Watch *w, uid_t uid) {
        return w->user && w->uid == uid;
}

int reload_watch(Manager *m) {
        Reloader *rl = reloader(m);
        if (!rl)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(rule_dirs); i++) {
                _cleanup_free_ char *dir = manager_path(m, rule_dirs[i]);
                if (!dir)
                        return -ENOMEM;
                add_watch(m, rl, -1, dir, false, 0);
                add_dropin_watches(m, rl, dir, false, 0, MAX_SYSTEM_WATCHES);
                /* The parent, to notice apps.d being created or replaced. */
                char *slash = strrchr(dir, '/');
                if (slash && slash != dir) {
                        *slash = '\0';
                        add_watch(m, rl, -1, dir, false, 0);
                }
        }
        /* A user's new ~/.config/qos/apps.d is found at the next full
         * reload; the ones that exist are watched, each as its own source. */
        for (size_t i = 0; i < m->user_dirs.n; i++)
                add_user_watches(m, rl, m->user_dirs.dirs[i].uid, m->user_dirs.dirs[i].dir);
        return 0;
}

static void rewatch_user(Manager *m, uid_t uid) {
        Reloader *rl = m->reloader;
        unwatch_if(rl, watch_of_user, uid);
        for (size_t i = 0; i < m->user_dirs.n; i++)
                if (m->user_dirs.dirs[i].uid == uid)
                        add_user_watches(m, rl, uid, m->user_dirs.dirs[i].dir);
}

void reload_watch_refresh(Manager *m) {
        Reloader *rl = m->reloader;
        if (!rl)
                return;
        for (size_t i = 0; i < rl->n_users; i++)
                if (rl->users[i]->timer)
                        sd_event_source_set_enabled(rl->users[i]->timer, SD_EVENT_OFF);
        reload_unwatch(m);
        reload_watch(m);
}

uint64_t reload_user_reloads(Manager *m, uid_t viewer) {
        Reloader *rl = m->reloader;
        if (viewer == 0)
                return m->counters.user_reloads;
        for (size_t i = 0; rl && i < rl->n_users; i++)
                if (rl->users[i]->uid == viewer)
                        return rl->users[i]->reloads;
        return 0;
}

void reload_unwatch(Manager *m) {
        if (m->reloader)
                unwatch_if(m->reloader, any_watch, 0);
}

void reload_free(Manager *m) {
        Reloader *rl = m->reloader;
        if (!rl)
                return;
        reload_unwatch(m);
        free(rl->watches);
        sd_event_source_disable_unref(rl->settle);
        for (size_t i = 0; i < rl->n_users; i++) {
                sd_event_source_disable_unref(rl->users[i]->timer);
                free(rl->users[i]);
        }
        free(rl->users);
        free(rl);
        m->reloader = NULL;
}
