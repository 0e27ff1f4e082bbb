/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/macro.h"
#include "core/sched-profile.h"

#define BASE_SLICE "/sys/kernel/debug/sched/base_slice_ns"
#define FEATURES "/sys/kernel/debug/sched/features"
#define CPUFREQ "/sys/devices/system/cpu/cpufreq"

/*
 * What each profile sets. NULL leaves a knob as found.
 *  throughput: a 3 ms base slice (twice the 2-CPU default): fewer
 *    preemptions between CPU-bound tasks; no high-resolution tick
 *    (slices end at the next tick, less timer overhead); performance
 *    governor.
 *  interactive: a 0.75 ms base slice so that a waking task waits less for
 *    the running one's slice to end; HRTICK so slices end on time rather
 *    than at the next tick; schedutil (frequency follows load).
 *  qos: the kernel's own base slice, with HRTICK: the classes set short
 *    slices on the threads that need them, and HRTICK is what makes a
 *    0.5 ms slice end after 0.5 ms; schedutil.
 */
typedef struct ProfileDef {
        const char *name;
        const char *base_slice_ns;
        const char *hrtick;     /* "HRTICK" or "NO_HRTICK" */
        const char *governor;
} ProfileDef;

static const ProfileDef profiles[] = {
        { "throughput", "3000000", "NO_HRTICK", "performance" },
        { "interactive", "750000", "HRTICK", "schedutil" },
        { "qos", NULL, "HRTICK", "schedutil" },
};

typedef struct Saved {
        char *path;             /* full path */
        char *value;            /* the value found before the first change */
} Saved;

struct SchedProfile {
        char *root;
        const ProfileDef *current;
        Saved *saved;
        size_t n_saved;
};

const char *sched_profile_names(void) {
        return "throughput, interactive, qos, default";
}

const char *sched_profile_current(const SchedProfile *p) {
        return p && p->current ? p->current->name : "default";
}

static char *join(const char *root, const char *path) {
        char *s;
        if (asprintf(&s, "%s%s", root && strcmp(root, "/") != 0 ? root : "", path) < 0)
                return NULL;
        return s;
}

static int read_line(const char *path, char **ret) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char *line = NULL;
        size_t n = 0;
        if (!f)
                return negative_errno();
        if (getline(&line, &n, f) < 0) {
                int r = ferror(f) ? negative_errno() : -ENODATA;
                free(line);
                return r;
        }
        line[strcspn(line, "\n")] = '\0';
        *ret = line;
        return 0;
}

static int write_value(const char *path, const char *value) {
        /* O_TRUNC means nothing to sysfs and debugfs; it keeps a regular
         * file standing in for them (tests) equal to what was written. */
        _cleanup_close_ int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        size_t len = strlen(value);
        ssize_t n = write(fd, value, len);
        if (n < 0)
                return negative_errno();
        return (size_t) n == len ? 0 : -EIO;
}

/* features lists every feature, disabled ones as NO_NAME. */
static int read_hrtick(const char *path, char **ret) {
        _cleanup_free_ char *all = NULL;
        int r = read_line(path, &all);
        if (r < 0)
                return r;
        for (char *save = NULL, *t = strtok_r(all, " ", &save); t; t = strtok_r(NULL, " ", &save))
                if (strcmp(t, "HRTICK") == 0 || strcmp(t, "NO_HRTICK") == 0)
                        return (*ret = strdup(t)) ? 0 : -ENOMEM;
        return -ENOENT;
}

static bool is_features(const char *path) {
        size_t n = strlen(path), k = strlen("/features");
        return n >= k && strcmp(path + n - k, "/features") == 0;
}

static int read_knob(const char *path, char **ret) {
        return is_features(path) ? read_hrtick(path, ret) : read_line(path, ret);
}

static void report(FILE *f, const char *root, const char *path, const char *fmt, ...) _printf_(4, 5);
static void report(FILE *f, const char *root, const char *path, const char *fmt, ...) {
        size_t skip = root && strcmp(root, "/") != 0 ? strlen(root) : 0;
        va_list ap;
        fprintf(f, "%s: ", path + skip);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
}

static int remember(SchedProfile *p, const char *path, const char *value) {
        for (size_t i = 0; i < p->n_saved; i++)
                if (strcmp(p->saved[i].path, path) == 0)
                        return 0; /* the first value found is the one to restore */
        Saved *s = realloc(p->saved, (p->n_saved + 1) * sizeof *s);
        if (!s)
                return -ENOMEM;
        p->saved = s;
        s[p->n_saved] = (Saved) { strdup(path), strdup(value) };
        if (!s[p->n_saved].path || !s[p->n_saved].value)
                return -ENOMEM;
        p->n_saved++;
        return 0;
}

static const char *saved_value(const SchedProfile *p, const char *path) {
        for (size_t i = 0; i < p->n_saved; i++)
                if (strcmp(p->saved[i].path, path) == 0)
                        return p->saved[i].value;
        return NULL;
}

/* Set one knob (want NULL: back to the value found first). */
static void set_knob(SchedProfile *p, FILE *rep, const char *path, const char *want) {
        _cleanup_free_ char *cur = NULL;
        int r = read_knob(path, &cur);
        if (r < 0) {
                report(rep, p->root, path, "unavailable: %s%s", strerror(-r),
                       r == -EPERM || r == -EACCES ? " (kernel lockdown?)" :
                       r == -ENOENT && strstr(path, "/debug/") ? " (debugfs not mounted?)" : "");
                return;
        }
        if (!want)
                want = saved_value(p, path);
        if (!want || strcmp(cur, want) == 0) {
                report(rep, p->root, path, "%s (unchanged)", cur);
                return;
        }
        if (remember(p, path, cur) < 0)
                return;
        r = write_value(path, want);
        if (r < 0)
                report(rep, p->root, path, "refused %s: %s", want, strerror(-r));
        else
                report(rep, p->root, path, "%s (was %s)", want, cur);
}

/* Governors per cpufreq policy, only where the wanted one is available. */
static void set_governors(SchedProfile *p, FILE *rep, const char *want) {
        _cleanup_free_ char *dir = join(p->root, CPUFREQ);
        _cleanup_closedir_ DIR *d = dir ? opendir(dir) : NULL;
        struct dirent *de;
        if (!d) {
                report(rep, p->root, dir ?: CPUFREQ, "unavailable: %s (no cpufreq on this machine)",
                       strerror(errno));
                return;
        }
        while ((de = readdir(d))) {
                if (strncmp(de->d_name, "policy", 6) != 0)
                        continue;
                _cleanup_free_ char *gov = NULL, *avail_path = NULL, *avail = NULL;
                if (asprintf(&gov, "%s/%s/scaling_governor", dir, de->d_name) < 0 ||
                    asprintf(&avail_path, "%s/%s/scaling_available_governors", dir, de->d_name) < 0)
                        return;
                if (want && read_line(avail_path, &avail) >= 0 && !strstr(avail, want)) {
                        report(rep, p->root, gov, "%s not available (have: %s)", want, avail);
                        continue;
                }
                set_knob(p, rep, gov, want);
        }
}

int sched_profile_switch(SchedProfile **pp, const char *root, const char *name, char **ret_report) {
        const ProfileDef *def = NULL;
        char *buf = NULL;
        size_t len = 0;

        if (strcmp(name, "default") != 0) {
                for (size_t i = 0; i < ELEMENTSOF(profiles); i++)
                        if (strcmp(profiles[i].name, name) == 0)
                                def = &profiles[i];
                if (!def)
                        return -EINVAL;
        }
        if (!*pp) {
                *pp = calloc(1, sizeof **pp);
                if (!*pp || !((*pp)->root = strdup(root ?: "/")))
                        return -ENOMEM;
        }
        SchedProfile *p = *pp;
        FILE *rep = open_memstream(&buf, &len);
        if (!rep)
                return -ENOMEM;
        _cleanup_free_ char *slice = join(p->root, BASE_SLICE), *feat = join(p->root, FEATURES);
        if (!slice || !feat) {
                fclose(rep);
                free(buf);
                return -ENOMEM;
        }
        /* "default" and a NULL entry both mean the value found first. */
        set_knob(p, rep, slice, def ? def->base_slice_ns : NULL);
        set_knob(p, rep, feat, def ? def->hrtick : NULL);
        set_governors(p, rep, def ? def->governor : NULL);
        fclose(rep);
        if (len > 0 && buf[len - 1] == '\n')
                buf[len - 1] = '\0';
        p->current = def;
        if (ret_report)
                *ret_report = buf;
        else
                free(buf);
        return 0;
}

void sched_profile_restore(SchedProfile *p) {
        if (!p)
                return;
        for (size_t i = p->n_saved; i > 0; i--) {
                Saved *s = &p->saved[i - 1];
                write_value(s->path, s->value);
                free(s->path);
                free(s->value);
        }
        free(p->saved);
        free(p->root);
        free(p);
}

static int add_state(ProfileKnobState **list, size_t *n, const SchedProfile *p, const char *root,
                     const char *path) {
        ProfileKnobState *l = realloc(*list, (*n + 1) * sizeof *l);
        _cleanup_free_ char *v = NULL;
        const char *old = p ? saved_value(p, path) : NULL;
        size_t skip = root && strcmp(root, "/") != 0 ? strlen(root) : 0;
        char *status = NULL;
        if (!l)
                return -ENOMEM;
        *list = l;
        int r = read_knob(path, &v);
        if (r < 0)
                r = asprintf(&status, "unavailable: %s%s", strerror(-r),
                             r == -EPERM || r == -EACCES ? " (kernel lockdown?)" :
                             r == -ENOENT && strstr(path, "/debug/") ? " (debugfs not mounted?)" : "");
        else if (old)
                r = asprintf(&status, "changed by qosd (was %s)", old);
        else
                r = asprintf(&status, "as found");
        l[*n] = (ProfileKnobState) { strdup(path + skip), strdup(v ?: ""), status };
        (*n)++;
        return r < 0 || !l[*n - 1].path || !l[*n - 1].value ? -ENOMEM : 0;
}

int sched_profile_describe(const SchedProfile *p, const char *root, ProfileKnobState **ret, size_t *ret_n) {
        ProfileKnobState *list = NULL;
        size_t n = 0;
        _cleanup_free_ char *slice = join(root, BASE_SLICE), *feat = join(root, FEATURES),
                            *dir = join(root, CPUFREQ);
        int r = slice && feat && dir ? 0 : -ENOMEM;

        if (r >= 0)
                r = add_state(&list, &n, p, root, slice);
        if (r >= 0)
                r = add_state(&list, &n, p, root, feat);
        _cleanup_closedir_ DIR *d = dir ? opendir(dir) : NULL;
        struct dirent *de;
        size_t before = n;
        while (r >= 0 && d && (de = readdir(d))) {
                _cleanup_free_ char *gov = NULL;
                if (strncmp(de->d_name, "policy", 6) != 0)
                        continue;
                if (asprintf(&gov, "%s/%s/scaling_governor", dir, de->d_name) < 0)
                        r = -ENOMEM;
                else
                        r = add_state(&list, &n, p, root, gov);
        }
        if (r >= 0 && n == before) {
                /* No policy directories: say so rather than list nothing. */
                _cleanup_free_ char *none = join(root, CPUFREQ "/policy*/scaling_governor");
                r = none ? add_state(&list, &n, p, root, none) : -ENOMEM;
        }
        if (r < 0) {
                profile_knob_states_free(list, n);
                return r;
        }
        *ret = list;
        *ret_n = n;
        return 0;
}

void profile_knob_states_free(ProfileKnobState *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(s[i].path);
                free(s[i].value);
                free(s[i].status);
        }
        free(s);
}
