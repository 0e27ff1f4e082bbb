/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rule set load time and match cost at the size of the largest public
 * ananicy collection (~16,000 rules in ~360 files), in three shapes:
 *   - 360 schedqos .json files holding 20,000 applications (ananicy's shape:
 *     many rules per file);
 *   - 360 qos.d files with 55 [Thread:] sections each;
 *   - 20,000 qos.d files, one per application (what `qosctl import
 *     ananicy` writes), 10% overridden in a second directory, 1% with a
 *     drop-in.
 * 1% of the applications are globs. Load: median of 5 warm-cache runs, in
 * wall-clock time and in CPU time of the process (which other load on the
 * machine does not inflate). Match: 100,000 lookups (70% exact hits, 10%
 * glob hits, 20% misses), each timed on its own (wall clock), plus the
 * mean CPU time per lookup. Prints a Markdown table. */
#include <errno.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/rules.h"

#define N_APPS 20000
#define N_FILES 360
#define N_LOADS 5
#define N_QUERIES 100000

static double clock_us(clockid_t c) {
        struct timespec ts;
        clock_gettime(c, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static double now_us(void) {
        return clock_us(CLOCK_MONOTONIC);
}

static double cpu_us(void) {
        return clock_us(CLOCK_PROCESS_CPUTIME_ID);
}

static void die(const char *what) {
        perror(what);
        exit(EXIT_FAILURE);
}

__attribute__((format(printf, 2, 3))) static FILE *create(const char *dir, const char *fmt, ...) {
        char name[256], path[4096];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(name, sizeof name, fmt, ap);
        va_end(ap);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "we");
        if (!f)
                die(path);
        return f;
}

static char *subdir(const char *root, const char *name) {
        char *p;
        if (asprintf(&p, "%s/%s", root, name) < 0)
                die("asprintf");
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
                die(p);
        return p;
}

static bool is_glob_app(int i) {
        return i % 100 == 99;
}

static void app_name(int i, char *buf, size_t size) {
        if (is_glob_app(i))
                snprintf(buf, size, "tool%05d-*", i);
        else
                snprintf(buf, size, "app%05d", i);
}

static void gen_json(const char *dir) {
        for (int file = 0; file < N_FILES; file++) {
                FILE *f = create(dir, "pack%03d.json", file);
                fputs("{\n", f);
                bool first = true;
                for (int i = file; i < N_APPS; i += N_FILES) {
                        char name[64];
                        app_name(i, name, sizeof name);
                        fprintf(f, "%s\t\"%s\": { \"qos\": \"%s\" }", first ? "" : ",\n", name,
                                i % 3 ? "QOS_BACKGROUND" : "QOS_USER_INITIATED");
                        first = false;
                }
                fputs("\n}\n", f);
                fclose(f);
        }
}

static void gen_threads(const char *dir) {
        for (int file = 0; file < N_FILES; file++) {
                FILE *f = create(dir, "app%05d.conf", file);
                fprintf(f, "[Process]\nClass=utility\n");
                for (int t = 0; t < 55; t++)
                        fprintf(f, "[Thread:%s%02d%s]\nClass=%s\n", t % 2 ? "pool" : "worker", t, t % 2 ? "-*" : "",
                                t % 3 ? "background" : "user-interactive");
                fclose(f);
        }
}

static void gen_files(const char *vendor, const char *admin) {
        for (int i = 0; i < N_APPS; i++) {
                char name[64];
                app_name(i, name, sizeof name);
                FILE *f = create(vendor, "app%05d.conf", i);
                fprintf(f, "# generated\n[Match]\nExecutable=%s%s\n[Process]\nClass=%s\n", i % 7 ? "" : "/usr/bin/",
                        name, i % 3 ? "background" : "user-initiated");
                fclose(f);
                if (i % 10 == 0) {
                        f = create(admin, "app%05d.conf", i);
                        fprintf(f, "[Match]\nExecutable=%s\n[Process]\nClass=utility\n", name);
                        fclose(f);
                }
                if (i % 100 == 1) {
                        char d[64];
                        snprintf(d, sizeof d, "app%05d.conf.d", i);
                        char *dd = subdir(admin, d);
                        f = create(dd, "%02d-extra.conf", 50);
                        fprintf(f, "[Thread:render*]\nClass=user-interactive\n");
                        fclose(f);
                        free(dd);
                }
        }
}

typedef struct Query {
        char exe[64];
        const char *arg0;
        const char *thread;
} Query;

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

static void run(const char *label, const char *const *dirs, size_t n_dirs, bool threads) {
        RuleSources src = { .dirs = dirs, .n_dirs = n_dirs };
        double loads[N_LOADS], load_cpu[N_LOADS];
        RuleSet *rs = NULL;
        size_t rules = 0, files = 0;

        for (int k = 0; k < N_LOADS; k++) {
                DiagList diag = {};
                ruleset_free(rs);
                double t0 = now_us(), c0 = cpu_us();
                if (ruleset_load(&src, &rs, &diag) < 0)
                        die("ruleset_load");
                loads[k] = now_us() - t0;
                load_cpu[k] = cpu_us() - c0;
                if (diag.n > 0) {
                        diag_list_print(&diag, stderr);
                        fprintf(stderr, "the generated rules must load without messages\n");
                        exit(EXIT_FAILURE);
                }
                diag_list_clear(&diag);
        }
        rules = ruleset_size(rs);
        files = ruleset_n_files(rs);
        qsort(loads, N_LOADS, sizeof *loads, cmp_double);
        qsort(load_cpu, N_LOADS, sizeof *load_cpu, cmp_double);

        Query *q = calloc(N_QUERIES, sizeof *q);
        double *cost = calloc(N_QUERIES, sizeof *cost);
        if (!q || !cost)
                die("calloc");
        srand(42);
        for (int i = 0; i < N_QUERIES; i++) {
                int r = rand() % 100, app = rand() % (threads ? N_FILES : N_APPS);
                if (threads || r < 70)
                        snprintf(q[i].exe, sizeof q[i].exe, "/usr/bin/app%05d", app - is_glob_app(app));
                else if (r < 80)
                        snprintf(q[i].exe, sizeof q[i].exe, "/usr/bin/tool%05d-x", app / 100 * 100 + 99);
                else
                        snprintf(q[i].exe, sizeof q[i].exe, "/usr/bin/unknown%05d", app);
                q[i].arg0 = strrchr(q[i].exe, '/') + 1;
                static const char *const names[] = { "worker07", "pool13-a", "render", "main", "worker54" };
                q[i].thread = names[rand() % 5];
        }
        size_t hits = 0;
        double c0 = cpu_us();
        for (int i = 0; i < N_QUERIES; i++) {
                ProcessInfo p = { .exe = q[i].exe, .arg0 = q[i].arg0, .cmdline = q[i].exe, .comm = q[i].arg0,
                                  .cgroup = "/user.slice/user-1000.slice/session-2.scope", .uid = 1000 };
                MatchResult m;
                double t0 = now_us();
                hits += ruleset_match(rs, &p, q[i].thread, &m) > 0;
                cost[i] = now_us() - t0;
        }
        /* Includes the two clock reads around each lookup. */
        double mean_cpu = (cpu_us() - c0) / N_QUERIES;
        qsort(cost, N_QUERIES, sizeof *cost, cmp_double);
        printf("| %-44s | %6zu | %6zu | %7.1f | %7.1f | %6.2f | %6.2f | %6.2f | %5.1f%% |\n", label, files, rules,
               loads[N_LOADS / 2] / 1e3, load_cpu[N_LOADS / 2] / 1e3, cost[N_QUERIES / 2], cost[N_QUERIES * 99 / 100],
               mean_cpu, 100.0 * (double) hits / N_QUERIES);
        free(q);
        free(cost);
        ruleset_free(rs);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

int main(void) {
        char root[] = "/tmp/qos-bench-XXXXXX";
        if (!mkdtemp(root))
                die("mkdtemp");

        char *json = subdir(root, "json"), *threads = subdir(root, "threads");
        char *vendor = subdir(root, "vendor"), *admin = subdir(root, "admin");
        gen_json(json);
        gen_threads(threads);
        gen_files(vendor, admin);

        printf("| %-44s | %6s | %6s | %7s | %7s | %6s | %6s | %6s | %6s |\n", "rule set", "files", "rules",
               "load ms", "cpu ms", "p50 us", "p99 us", "cpu us", "hits");
        printf("|%s|-------:|-------:|--------:|--------:|-------:|-------:|-------:|-------:|\n",
               "----------------------------------------------");
        run("360 schedqos .json, 20,000 applications", (const char *[]) { json }, 1, false);
        run("360 qos.d files, 55 [Thread:] rules each", (const char *[]) { threads }, 1, true);
        run("20,000 qos.d files, 2 directories, drop-ins", (const char *[]) { vendor, admin }, 2, false);

        nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(json);
        free(threads);
        free(vendor);
        free(admin);
        return EXIT_SUCCESS;
}
