/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl check: load rule files the way qosd does and say what is wrong
 * with them, file:line by file:line; --effective shows the merged result. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/macro.h"
#include <syslog.h>

#include "config/rules.h"
#include "core/tree-open.h"

static void help(void) {
        printf("Usage: qosctl [--root DIR] check [OPTIONS] [FILE|DIR...]\n"
               "\n"
               "Parse application rule files and print every error and warning as\n"
               "file:line: message. Without arguments the system directories are read\n"
               "(vendor < admin < runtime, below --root); directories given replace them\n"
               "and layer in the order given, lowest first; files are read each on its own.\n"
               "\n"
               "Options:\n"
               "  -e, --effective     print the merged rules: which file won, what it\n"
               "                      masks, the drop-ins applied, where each setting is from\n"
               "  -u, --user          also read the caller's ~/.config/qos/apps.d\n"
               "  -U, --user-dir DIR  also read DIR as the caller's own directory\n"
               "  -h, --help          show this help\n"
               "\n"
               "Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage.\n");
}

/* $XDG_CONFIG_HOME/qos/apps.d, else ~/.config/qos/apps.d. */
static int caller_user_dir(char **ret) {
        const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        int r;
        if (xdg && *xdg == '/')
                r = asprintf(ret, "%s/qos/%s", xdg, QOS_APPS_SUBDIR);
        else if (home && *home == '/')
                r = asprintf(ret, "%s/.config/qos/%s", home, QOS_APPS_SUBDIR);
        else {
                fprintf(stderr, "qosctl check: --user: neither $XDG_CONFIG_HOME nor $HOME is set\n");
                return -EINVAL;
        }
        return r < 0 ? -ENOMEM : 0;
}

/* The caller's files as qosd opens them (tree-open.h): below $HOME, a
 * link that leads out of it is refused, so that check says what qosd
 * will. userdata: $HOME, or NULL. */
static int open_as_qosd(uid_t uid, const char *path, int flags, void *userdata) {
        return tree_open_path(userdata, path, flags);
}

typedef struct Args {
        const char **v;
        size_t n;
} Args;

static void args_done(Args *a) {
        free(a->v);
}

static int args_push(Args *a, const char *s) {
        const char **v = reallocarray(a->v, a->n + 1, sizeof *v);
        if (!v)
                return -ENOMEM;
        a->v = v;
        v[a->n++] = s;
        return 0;
}

static void diag_list_clearp(DiagList *l) {
        diag_list_clear(l);
}

/* The operands into directories and files; those that cannot be read
 * are said and counted (the return value), or -ENOMEM. */
static int sort_operands(char **v, int n, Args *dirs, Args *files) {
        int errors = 0;
        for (int i = 0; i < n; i++) {
                struct stat st;
                if (stat(v[i], &st) < 0) {
                        fprintf(stderr, "%s: error: cannot access: %m\n", v[i]);
                        errors++;
                        continue;
                }
                if (args_push(S_ISDIR(st.st_mode) ? dirs : files, v[i]) < 0)
                        return -ENOMEM;
        }
        return errors;
}

/* The messages, sorted, and the summary line; the exit status. */
static int report(const RuleSet *rs, DiagList *diag, int errors) {
        (void) diag_list_sort(diag); /* unsorted is still readable */
        cli_print_diags(diag);

        errors += (int) diag_list_count(diag, LOG_ERR);
        size_t warnings = diag_list_count(diag, LOG_WARNING);
        fprintf(stderr, "%zu files, %zu rules: %d error%s, %zu warning%s\n", ruleset_n_files(rs), ruleset_size(rs),
                errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
        return errors > 0 ? EXIT_FAIL : EXIT_OK;
}

int cmd_check(int argc, char **argv) {
        static const struct option opts[] = {
                { "effective", no_argument, NULL, 'e' },
                { "user", no_argument, NULL, 'u' },
                { "user-dir", required_argument, NULL, 'U' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        _cleanup_(args_done) Args dirs = {}, files = {}, udirs = {};
        _cleanup_free_ char *home_dir = NULL;
        _cleanup_free_ UserRuleDir *user_dirs = NULL;
        _cleanup_(diag_list_clearp) DiagList diag = {};
        _cleanup_(ruleset_freep) RuleSet *rs = NULL;
        bool effective = false;
        int c, r, errors = 0;

        while ((c = getopt_long(argc, argv, "euU:h", opts, NULL)) >= 0) {
                switch (c) {
                case 'e':
                        effective = true;
                        break;
                case 'u':
                        if (!home_dir && caller_user_dir(&home_dir) < 0)
                                return EXIT_USAGE;
                        if (args_push(&udirs, home_dir) < 0)
                                return EXIT_FAIL;
                        break;
                case 'U':
                        if (args_push(&udirs, optarg) < 0)
                                return EXIT_FAIL;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                default:
                        return EXIT_USAGE;
                }
        }

        r = sort_operands(argv + optind, argc - optind, &dirs, &files);
        if (r < 0)
                return EXIT_FAIL;
        errors += r;

        user_dirs = calloc(udirs.n ? udirs.n : 1, sizeof *user_dirs);
        if (!user_dirs)
                return EXIT_FAIL;
        for (size_t i = 0; i < udirs.n; i++)
                user_dirs[i] = (UserRuleDir) { .uid = getuid(), .dir = udirs.v[i] };

        /* With operands, only they are read: even when none of them exists,
         * an empty (non-NULL) list keeps the system directories out. */
        static const char *const none[1];
        bool explicit = optind < argc;
        const char *home = getenv("HOME");
        RuleSources src = {
                .root = cli_root(),
                .user_dirs = user_dirs,
                .n_user_dirs = udirs.n,
                .dirs = explicit ? (dirs.v ? dirs.v : none) : NULL,
                .n_dirs = dirs.n,
                .files = files.v,
                .n_files = files.n,
                .open_user = open_as_qosd,
                .userdata = (void *) (home && *home == '/' ? home : NULL),
        };

        r = ruleset_load(&src, &rs, &diag);
        if (r < 0) {
                fprintf(stderr, "qosctl check: %s\n", strerror(-r));
                return EXIT_FAIL;
        }
        if (effective) {
                ruleset_write_effective(rs, stdout); /* names escaped: rule-dump.c */
                fflush(stdout);
        }
        return report(rs, &diag, errors);
}
