/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

#include "config/ananicy-import.h"
#include "config/conf-dirs.h"
#include "config/conf-entries.h"
#include "config/conf-skipped.h"
#include "config/file-open.h"
#include "core/macro.h"

static bool has_suffix(const char *s, const char *suffix, size_t *ret_stem) {
        size_t n = strlen(s), k = strlen(suffix);
        if (n <= k || strcmp(s + n - k, suffix) != 0)
                return false;
        if (ret_stem)
                *ret_stem = n - k;
        return true;
}

int conf_dir_under_root(const char *root, const char *dir, char **ret) {
        if (!root || !*root || strcmp(root, "/") == 0) {
                *ret = strdup(dir);
                return *ret ? 0 : -ENOMEM;
        }
        size_t n = strlen(root);
        while (n > 1 && root[n - 1] == '/')
                n--;
        return asprintf(ret, "%.*s%s", (int) n, root, dir) < 0 ? -ENOMEM : 0;
}

/* systemd's masks: a symlink to /dev/null (read, not followed: a user's
 * opener refuses links out of the home), ... */
static bool links_to_null(int dfd, const char *name) {
        char target[16];
        ssize_t n = readlinkat(dfd, name, target, sizeof target - 1);
        if (n <= 0)
                return false;
        target[n] = '\0';
        return strcmp(target, "/dev/null") == 0;
}

/* ... /dev/null itself, or an empty file. */
static bool is_mask_file(const struct stat *st) {
        if (S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3))
                return true;
        return S_ISREG(st->st_mode) && st->st_size == 0;
}

static bool is_mask(int dfd, const char *name, const struct stat *st) {
        return links_to_null(dfd, name) || is_mask_file(st);
}

/* What path is, through the opener. */
static int stat_via(const FileOpener *o, const char *path, struct stat *st) {
        _cleanup_close_ int fd = file_open(o, path, O_PATH);
        if (fd < 0)
                return fd;
        return fstat(fd, st) < 0 ? negative_errno() : 0;
}

/* Report a directory we cannot read; a missing one is normal. A refused
 * one (a link out of a user's home) is an error: the user's rules there
 * are not loaded. */
static int open_dir(const FileOpener *o, const char *dir, DIR **ret, DiagList *diag) {
        int r = file_opendir(o, dir, ret);
        if (r >= 0)
                return 1;
        if (r == -ENOENT)
                return 0;
        return diag_add(diag, r == -EXDEV ? LOG_ERR : LOG_WARNING, dir, 0, "cannot read directory: %s; skipped",
                        file_error_string(r));
}

/* What an entry is: S_IFREG, S_IFDIR (or other S_IF*), 0 when it cannot
 * be told (reported). *mask as for entry_add(). Plain files and
 * directories are told by d_type alone; only symlinks and file systems
 * without d_type cost a stat here, because most files never need one (see
 * resolve_mask()). Through an opener (a user's directory), an entry that
 * cannot be looked at counts as a file: reading it says why, in the same
 * words as for any of the user's files. */
static int entry_type(const FileOpener *o, DIR *d, const char *dir, const struct dirent *de, int *mask,
                      DiagList *diag) {
        _cleanup_free_ char *p = NULL;
        struct stat st;
        int r;

        *mask = 0;
        if (de->d_type == DT_REG) {
                *mask = -1;
                return S_IFREG;
        }
        if (de->d_type == DT_DIR)
                return S_IFDIR;
        if (!o) {
                if (fstatat(dirfd(d), de->d_name, &st, 0) >= 0) {
                        *mask = is_mask(dirfd(d), de->d_name, &st);
                        return *mask ? S_IFREG : (int) (st.st_mode & S_IFMT);
                }
                if (conf_path_join(dir, de->d_name, &p) < 0)
                        return -ENOMEM;
                r = diag_add(diag, LOG_WARNING, p, 0, "cannot stat: %m; skipped");
                return r < 0 ? r : 0;
        }
        if (links_to_null(dirfd(d), de->d_name)) {
                *mask = 1;
                return S_IFREG;
        }
        if (conf_path_join(dir, de->d_name, &p) < 0)
                return -ENOMEM;
        if (stat_via(o, p, &st) < 0)
                return S_IFREG;
        *mask = is_mask_file(&st);
        return *mask ? S_IFREG : (int) (st.st_mode & S_IFMT);
}

/* report: say which names are skipped (a user's scope scans the system
 * directories again, and does not). */
static int scan_dropins(const FileOpener *o, EntryList *l, const char *unit, const char *dir, unsigned level,
                        bool report, DiagList *diag) {
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_(skipped_done) Skipped skipped = {};
        struct dirent *de;
        int r;

        r = open_dir(o, dir, &d, diag);
        if (r <= 0)
                return r;
        while ((de = readdir(d))) {
                int mask;
                if (de->d_name[0] == '.')
                        continue;
                if (!has_suffix(de->d_name, ".conf", NULL)) {
                        if (report && (r = skipped_add(&skipped, de->d_name)) < 0)
                                return r;
                        continue;
                }
                r = entry_type(o, d, dir, de, &mask, diag);
                if (r < 0)
                        return r;
                if (r == 0 || r == S_IFDIR)
                        continue;
                r = entry_add(l, unit, de->d_name, dir, de->d_name, level, mask, UNIT_CONF);
                if (r < 0)
                        return r;
        }
        return skipped_report(&skipped, dir, true, diag);
}

/* The drop-in directories a capped scan kept: read now, in name order. */
static int scan_kept_dropins(const FileOpener *o, EntryList *l, EntryList *dropin_dirs, unsigned level,
                             DiagList *diag) {
        int r = entry_list_take_capped(dropin_dirs, diag);
        if (r < 0)
                return r;
        if (dropin_dirs->n > 0)
                qsort(dropin_dirs->items, dropin_dirs->n, sizeof *dropin_dirs->items, cmp_entry);
        for (size_t i = 0; i < dropin_dirs->n && r >= 0; i++)
                r = scan_dropins(o, l, dropin_dirs->items[i].unit, dropin_dirs->items[i].path, level, true, diag);
        return r;
}

/* In a capped directory (a user's), drop-in directories are counted like
 * files: each costs an open and a listing even when empty, so only the
 * first max_files by name are opened, and the rest reported once. */
static int scan_dir(const FileOpener *o, EntryList *l, const char *dir, unsigned level, bool report,
                    DiagList *diag) {
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_(skipped_done) Skipped skipped = {};
        struct dirent *de;
        bool capped = l->cap && level >= l->cap->from_level;
        _cleanup_(entry_list_done) EntryList dropin_dirs = { .cap = l->cap, .dirs = true };
        int r;

        r = open_dir(o, dir, &d, diag);
        if (r <= 0)
                return r;
        while ((de = readdir(d))) {
                const char *name = de->d_name;
                size_t stem = 0;
                int mask;

                if (name[0] == '.')
                        continue;
                bool conf = has_suffix(name, ".conf", NULL), json = has_suffix(name, ".json", NULL);
                bool conf_d = has_suffix(name, ".conf.d", &stem) && stem > 0;
                bool json_d = has_suffix(name, ".json.d", NULL);
                if (!conf && !json && !conf_d && !json_d) {
                        if (report && (r = skipped_add(&skipped, name)) < 0)
                                return r;
                        continue;
                }
                int type = entry_type(o, d, dir, de, &mask, diag);
                if (type < 0)
                        return type;
                if (type == 0)
                        continue;

                if (type == S_IFDIR) {
                        _cleanup_free_ char *sub = NULL, *unit = NULL;
                        if (json_d) {
                                if (conf_path_join(dir, name, &sub) < 0)
                                        return -ENOMEM;
                                r = diag_add(diag, LOG_WARNING, sub, 0,
                                             "drop-in directories extend .conf files only; ignored");
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        if (!conf_d)
                                continue;
                        unit = strndup(name, stem + strlen(".conf"));
                        if (!unit)
                                return -ENOMEM;
                        if (capped) {
                                r = entry_add(&dropin_dirs, unit, NULL, dir, name, level, 0, UNIT_CONF);
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        if (conf_path_join(dir, name, &sub) < 0)
                                return -ENOMEM;
                        r = scan_dropins(o, l, unit, sub, level, report, diag);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!conf && !json)
                        continue;
                r = entry_add(l, name, NULL, dir, name, level, mask, json ? UNIT_JSON : UNIT_CONF);
                if (r < 0)
                        return r;
        }
        r = skipped_report(&skipped, dir, false, diag);
        if (r < 0)
                return r;
        return capped ? scan_kept_dropins(o, l, &dropin_dirs, level, diag) : 0;
}

/* A copy of s in strings, appended to v. */
static int strv_push(Arena *strings, const char ***v, size_t *n, const char *s) {
        const char *copy = arena_strdup(strings, s);
        const char **t = copy ? reallocarray(*v, *n + 1, sizeof *t) : NULL;
        if (!t)
                return -ENOMEM;
        *v = t;
        t[(*n)++] = copy;
        return 0;
}

static int ignore(Arena *strings, ConfUnit *u, const Entry *e) {
        return strv_push(strings, &u->ignored, &u->n_ignored, e->path);
}

static bool same_name(const Entry *a, const Entry *b) {
        return strcmp(a->unit, b->unit) == 0 && !a->dropin == !b->dropin &&
               (!a->dropin || strcmp(a->dropin, b->dropin) == 0);
}

/* A plain file masks when it is empty. Only the files that win are asked,
 * at most one stat each; what a lower file holds never matters. */
static void resolve_mask(const FileOpener *o, Entry *e) {
        struct stat st;
        if (!e->mask_unknown)
                return;
        e->mask = stat_via(o, e->path, &st) >= 0 && S_ISREG(st.st_mode) && st.st_size == 0;
        e->mask_unknown = false;
}

/* The n entries of one unit, sorted by cmp_entry(); its strings are
 * copied into strings. */
static int make_unit(const FileOpener *o, Arena *strings, ConfUnit *u, Entry *e, size_t n, DiagList *diag) {
        int r;

        *u = (ConfUnit) { .kind = e[0].kind };
        for (size_t i = 0; i < n; i++)
                if (e[i].level > u->top_level)
                        u->top_level = e[i].level;

        size_t i = 0;
        bool have_main = !e[0].dropin;
        const char *path = have_main ? arena_strdup(strings, e[0].path) : NULL;
        if (have_main && !path)
                return -ENOMEM;
        /* The name is the path's last part, once for each of thousands. */
        size_t path_len = path ? strlen(path) : 0, name_len = strlen(e[0].unit);
        if (path_len > name_len && path[path_len - name_len - 1] == '/' &&
            strcmp(path + path_len - name_len, e[0].unit) == 0)
                u->name = path + path_len - name_len;
        else
                u->name = arena_strdup(strings, e[0].unit);
        if (!u->name)
                return -ENOMEM;

        if (have_main) {
                u->level = e[0].level;
                resolve_mask(o, &e[0]);
                if (e[0].mask)
                        u->masked_by = path;
                else
                        u->path = path;
                for (i = 1; i < n && !e[i].dropin; i++)
                        if ((r = ignore(strings, u, &e[i])) < 0)
                                return r;
        }
        if (!have_main && i < n) {
                r = diag_add(diag, LOG_WARNING, e[0].path, 0, "drop-in for %s, but there is no %s; ignored",
                             u->name, u->name);
                if (r < 0)
                        return r;
        }
        for (; i < n; i++) {
                /* The first of each drop-in name is the highest one. */
                bool wins = i == 0 || !same_name(&e[i], &e[i - 1]);
                if (wins)
                        resolve_mask(o, &e[i]);
                if (!have_main || u->masked_by || !wins || e[i].mask)
                        r = ignore(strings, u, &e[i]);
                else
                        r = strv_push(strings, &u->dropins, &u->n_dropins, e[i].path);
                if (r < 0)
                        return r;
        }
        return 0;
}

bool conf_dirs_exceed(const char *const *dirs, size_t n_dirs, size_t limit) {
        size_t n = 0;

        for (size_t i = 0; i < n_dirs; i++) {
                _cleanup_closedir_ DIR *d = opendir(dirs[i]);
                struct dirent *de;
                while (d && (de = readdir(d)))
                        if (de->d_name[0] != '.' && ++n > limit)
                                return true;
        }
        return false;
}

int conf_layout_build(ConfLayout *ret, const char *const *dirs, size_t n_dirs, DiagList *diag) {
        return conf_layout_build_capped(ret, dirs, n_dirs, NULL, NULL, diag);
}

int conf_layout_build_capped(ConfLayout *ret, const char *const *dirs, size_t n_dirs, const ConfCap *cap,
                             const FileOpener *o, DiagList *diag) {
        EntryList l = { .cap = cap && cap->max_files != SIZE_MAX ? cap : NULL };
        unsigned report_from = cap ? cap->from_level : 0;
        ConfLayout layout = {};
        int r = 0;

        for (size_t i = 0; i < n_dirs && r >= 0; i++)
                r = scan_dir(o, &l, dirs[i], (unsigned) i, i >= report_from, diag);
        if (r >= 0)
                r = entry_list_take_capped(&l, diag);
        if (r < 0)
                goto finish;

        if (l.n > 0) { /* qsort(NULL, 0, ...) is undefined; no rule files is normal */
                qsort(l.items, l.n, sizeof *l.items, cmp_entry);
                layout.strings = arena_new();
                if (!layout.strings) {
                        r = -ENOMEM;
                        goto finish;
                }
        }
        for (size_t i = 0; i < l.n;) {
                size_t j = i + 1;
                while (j < l.n && strcmp(l.items[j].unit, l.items[i].unit) == 0)
                        j++;
                ConfUnit *u = reallocarray(layout.units, layout.n_units + 1, sizeof *u);
                if (!u) {
                        r = -ENOMEM;
                        goto finish;
                }
                layout.units = u;
                r = make_unit(o, layout.strings, &layout.units[layout.n_units++], &l.items[i], j - i, diag);
                if (r < 0)
                        goto finish;
                i = j;
        }
        *ret = layout;
        layout = (ConfLayout) {};
finish:
        entry_list_done(&l);
        conf_layout_done(&layout);
        return r;
}

int conf_layout_add_file(ConfLayout *l, const char *path, DiagList *diag) {
        const char *slash = strrchr(path, '/');
        const char *name = slash ? slash + 1 : path;
        bool json = has_suffix(name, ".json", NULL);
        struct stat st;

        if (!json && !has_suffix(name, ".conf", NULL))
                return diag_add(diag, LOG_ERR, path, 0, "not a .conf or .json file; skipped%s",
                                ananicy_reads_file(name) ? "; " ANANICY_IMPORT_HINT : "");
        if (stat(path, &st) < 0)
                return diag_add(diag, LOG_ERR, path, 0, "cannot read: %m; skipped");

        if (!l->strings && !(l->strings = arena_new()))
                return -ENOMEM;
        ConfUnit *u = reallocarray(l->units, l->n_units + 1, sizeof *u);
        if (!u)
                return -ENOMEM;
        l->units = u;
        u = &l->units[l->n_units];
        *u = (ConfUnit) { .kind = json ? UNIT_JSON : UNIT_CONF };
        u->name = arena_strdup(l->strings, name);
        const char *p = arena_strdup(l->strings, path);
        if (!u->name || !p)
                return -ENOMEM;
        if (is_mask(AT_FDCWD, path, &st))
                u->masked_by = p;
        else
                u->path = p;
        l->n_units++;
        return 0;
}

static void unit_done(ConfUnit *u) {
        free(u->dropins);
        free(u->ignored);
}

void conf_layout_keep_from(ConfLayout *l, unsigned level) {
        size_t k = 0;
        for (size_t i = 0; i < l->n_units; i++) {
                if (l->units[i].top_level >= level)
                        l->units[k++] = l->units[i];
                else
                        unit_done(&l->units[i]);
        }
        l->n_units = k;
}

static int cmp_unit_name(const void *key, const void *u) {
        return strcmp(key, ((const ConfUnit *) u)->name);
}

const ConfUnit *conf_layout_find(const ConfLayout *l, const char *name) {
        if (l->n_units == 0)
                return NULL;
        return bsearch(name, l->units, l->n_units, sizeof *l->units, cmp_unit_name);
}

void conf_layout_done(ConfLayout *l) {
        for (size_t i = 0; i < l->n_units; i++)
                unit_done(&l->units[i]);
        free(l->units);
        arena_free(l->strings);
        *l = (ConfLayout) {};
}
