/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "focus/focus-mutter.h"
#include "focus/focus.h"
#include "focus/foreground.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/proc.h"

#define MARK_XATTR "user.xdg.inactive-since"
/* app.slice and its sub-slices per user; more are not watched. */
#define WATCHES_MAX 64
#define WATCHES_TOTAL 256

typedef struct Watch {
        int wd;
        uid_t uid;
        char path[512];         /* cgroup paths of app slices are short */
} Watch;

struct MutterFocus {
        int fd;
        sd_event_source *source;
        Watch watches[WATCHES_TOTAL];
        size_t n;
        char focused[PATH_MAX];         /* the cgroup whose mark said -1 last */
        Manager *manager;
};

int mutter_mark_parse(const char *value, size_t len) {
        char buf[32], *end;
        if (len == 0 || len >= sizeof buf || memchr(value, '\0', len - 1))
                return -EINVAL; /* a NUL may only end it */
        memcpy(buf, value, len);
        buf[len] = '\0';
        if (buf[len - 1] == '\n' || buf[len - 1] == '\0')
                buf[len - 1] = '\0';
        if (buf[0] != '-' && (buf[0] < '0' || buf[0] > '9'))
                return -EINVAL; /* strtoll would skip blanks and take a sign */
        errno = 0;
        long long v = strtoll(buf, &end, 10);
        if (errno || end == buf || *end)
                return -EINVAL;
        if (v == -1)
                return 1;
        return v >= 0 ? 0 : -EINVAL;
}

static void app_slice_of(uid_t uid, char *buf, size_t size) {
        snprintf(buf, size, "%s/user.slice/user-%u.slice/user@%u.service/app.slice",
                 kernel_caps()->cgroup.v2_mount, (unsigned) uid, (unsigned) uid);
}

static Watch *watch_of(MutterFocus *mf, int wd) {
        for (size_t i = 0; i < mf->n; i++)
                if (mf->watches[i].wd == wd)
                        return &mf->watches[i];
        return NULL;
}

static size_t watches_of(const MutterFocus *mf, uid_t uid) {
        size_t k = 0;
        for (size_t i = 0; i < mf->n; i++)
                k += mf->watches[i].uid == uid;
        return k;
}

static void watch_add(MutterFocus *mf, uid_t uid, const char *path) {
        if (mf->n >= ELEMENTSOF(mf->watches) || watches_of(mf, uid) >= WATCHES_MAX ||
            strlen(path) >= sizeof mf->watches[0].path)
                return;
        int wd = inotify_add_watch(mf->fd, path, IN_ATTRIB | IN_CREATE | IN_ONLYDIR | IN_DONT_FOLLOW);
        if (wd < 0)
                return; /* not there (yet): the next seat change tries again */
        if (watch_of(mf, wd))
                return;
        Watch *w = &mf->watches[mf->n++];
        w->wd = wd;
        w->uid = uid;
        snprintf(w->path, sizeof w->path, "%s", path);
}

static bool is_slice(const char *name) {
        size_t n = strlen(name);
        return n > 6 && strcmp(name + n - 6, ".slice") == 0;
}

/* app.slice and the slices directly in it (app-org.gnome.Foo.slice). */
static void watch_user(MutterFocus *mf, uid_t uid) {
        char path[512], sub[PATH_MAX];
        app_slice_of(uid, path, sizeof path);
        watch_add(mf, uid, path);
        _cleanup_closedir_ DIR *d = opendir(path);
        struct dirent *de;
        while (d && (de = readdir(d))) {
                if (de->d_type == DT_DIR && is_slice(de->d_name)) {
                        snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
                        watch_add(mf, uid, sub);
                }
        }
}

/* The processes of cgroup path that belong to uid, at most FOREGROUND_MAX. */
static int cgroup_procs(const char *path, uid_t uid, pid_t **ret, size_t *ret_n) {
        char procs[PATH_MAX + 16];
        _cleanup_free_ pid_t *list = calloc(FOREGROUND_MAX, sizeof *list);
        size_t n = 0;
        int pid;
        if (!list)
                return -ENOMEM;
        if (snprintf(procs, sizeof procs, "%s/cgroup.procs", path) >= (int) sizeof procs)
                return -ENAMETOOLONG;
        _cleanup_fclose_ FILE *f = fopen(procs, "re");
        if (!f)
                return negative_errno();
        while (n < FOREGROUND_MAX && fscanf(f, "%d", &pid) == 1) {
                uid_t owner;
                if (pid > 0 && proc_uid(pid, &owner) >= 0 && owner == uid)
                        list[n++] = pid;
        }
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

static void on_mark(Manager *m, MutterFocus *mf, const Watch *w, const char *name) {
        char path[PATH_MAX], value[64];
        if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return;
        if (snprintf(path, sizeof path, "%s/%s", w->path, name) >= (int) sizeof path)
                return;
        ssize_t len = lgetxattr(path, MARK_XATTR, value, sizeof value);
        if (len < 0)
                return; /* another attribute changed, or the cgroup went */
        int focused = mutter_mark_parse(value, (size_t) len);
        if (focused < 0) {
                focus_count_refused(m);
                log_debug("%s: %s is not a timestamp, ignored", path, MARK_XATTR);
                return;
        }
        if (!focused) {
                /* Lost the focus: if nothing else took it in a scope,
                 * nothing of this user's is in front. */
                if (strcmp(mf->focused, path) == 0) {
                        mf->focused[0] = '\0';
                        (void) focus_set(m, "mutter", w->uid, NULL, NULL, 0);
                }
                return;
        }
        _cleanup_free_ pid_t *pids = NULL;
        size_t n;
        if (cgroup_procs(path, w->uid, &pids, &n) < 0)
                return;
        snprintf(mf->focused, sizeof mf->focused, "%s", path);
        int r = focus_set(m, "mutter", w->uid, NULL, pids, n);
        if (r < 0)
                log_warning_errno(r, "cannot take the foreground from %s: %m", path);
}

static int on_inotify(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        MutterFocus *mf = userdata;
        _Alignas(struct inotify_event) char buf[4096];
        ssize_t len;

        while ((len = read(fd, buf, sizeof buf)) > 0) {
                for (char *p = buf; p < buf + len;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;
                        Watch *w = watch_of(mf, ev->wd);
                        p += sizeof *ev + ev->len;
                        if (!w || !ev->len || !(ev->mask & IN_ISDIR))
                                continue;
                        if (ev->mask & IN_ATTRIB)
                                on_mark(mf->manager, mf, w, ev->name);
                        else if ((ev->mask & IN_CREATE) && is_slice(ev->name) && strstr(w->path, "/app.slice") &&
                                 strcmp(strrchr(w->path, '/'), "/app.slice") == 0) {
                                char sub[PATH_MAX];
                                if (snprintf(sub, sizeof sub, "%s/%s", w->path, ev->name) >= (int) sizeof sub)
                                continue;
                                watch_add(mf, w->uid, sub);
                        }
                }
        }
        return 0;
}

int mutter_focus_new(Manager *m, MutterFocus **ret) {
        *ret = NULL;
        if (!kernel_caps()->cgroup.v2_mount[0] || access("/run/systemd/system", F_OK) < 0)
                return 0; /* no systemd layout: no unit cgroups to mark */
        MutterFocus *mf = calloc(1, sizeof *mf);
        if (!mf)
                return -ENOMEM;
        mf->manager = m;
        mf->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (mf->fd < 0) {
                int r = negative_errno();
                free(mf);
                return log_error_errno(r, "cannot follow mutter's focus marks: %m");
        }
        int r = sd_event_add_io(m->event, &mf->source, mf->fd, EPOLLIN, on_inotify, mf);
        if (r < 0) {
                mutter_focus_free(mf);
                return log_error_errno(r, "cannot follow mutter's focus marks: %m");
        }
        *ret = mf;
        return 0;
}

void mutter_focus_free(MutterFocus *mf) {
        if (!mf)
                return;
        sd_event_source_disable_unref(mf->source);
        if (mf->fd >= 0)
                close(mf->fd);
        free(mf);
}

void mutter_focus_sync(Manager *m, MutterFocus *mf, const Seats *seats) {
        if (!mf)
                return;
        /* Drop the users who left, then watch who sits there now. */
        size_t k = 0;
        for (size_t i = 0; i < mf->n; i++) {
                if (seats_user_active(seats, mf->watches[i].uid))
                        mf->watches[k++] = mf->watches[i];
                else
                        inotify_rm_watch(mf->fd, mf->watches[i].wd);
        }
        mf->n = k;
        for (size_t i = 0; i < seats->n_active; i++)
                if (seats->active[i] != 0)
                        watch_user(mf, seats->active[i]);
}
