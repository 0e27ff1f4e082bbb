/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl import ananicy SRC DEST: one qos.d file per ananicy rule, each
 * saying where it came from and what it could not carry over. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "config/ananicy-import.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/term-escape.h"

static void help(void) {
        printf("Usage: qosctl import ananicy [--force] SRC DEST\n"
               "\n"
               "Convert an ananicy or ananicy-cpp rule tree (*.rules, *.types, *.cgroups\n"
               "below SRC, read as ananicy-cpp reads them) into one qos.d file per rule in\n"
               "DEST (created if missing), named after the rule (valid UTF-8 kept, the rest\n"
               "escaped as \\xNN) and matching by Executable=. Each rule gets the nearest\n"
               "class; every setting that has no counterpart is reported as\n"
               "file:line: warning: ... and noted in the file written.\n"
               "\n"
               "Options:\n"
               "  -f, --force   overwrite files that already exist in DEST\n"
               "  -h, --help    show this help\n"
               "\n"
               "Exit status: 0 every rule written (warnings allowed), 1 some rules or lines\n"
               "skipped, 2 usage.\n");
}

static int write_rule(const char *dest, const char *file, const AnanicyEntry *rule, const AnanicyConversion *c,
                      bool force) {
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s", dest, file) < 0)
                return -ENOMEM;
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), 0644);
        if (fd < 0) {
                int r = negative_errno();
                _cleanup_free_ char *name = term_escape(rule->name); /* the ananicy file's words */
                fprintf(stderr, "%s: error: %s%s; rule '%s' not written\n", path, strerror(-r),
                        r == -EEXIST ? " (use --force to overwrite)" : "", name ?: "?");
                return 0;
        }
        FILE *f = fdopen(fd, "w");
        if (!f) {
                close(fd);
                return -ENOMEM;
        }
        int r = ananicy_write_conf(f, rule, c);
        if (fclose(f) != 0 || r < 0) {
                int saved = errno; /* %m after the allocation could name another error */
                _cleanup_free_ char *name = term_escape(rule->name);
                fprintf(stderr, "%s: error: %s; rule '%s' not written completely\n", path, strerror(saved),
                        name ?: "?");
                return 0;
        }
        return 1;
}

/* File names are the rules' names escaped reversibly, and names are unique
 * after loading: no two rules write one file. */
static int import_tree(const AnanicyTree *t, const char *dest, bool force, DiagList *diag, size_t *ret_written,
                       size_t *ret_lossy) {
        int r = 0;

        for (size_t i = 0; i < t->n_rules && r >= 0; i++) {
                const AnanicyEntry *rule = &t->rules[i];
                AnanicyConversion c;
                _cleanup_free_ char *file = NULL;

                r = ananicy_convert(t, rule, &c, diag);
                if (r <= 0)
                        continue;
                file = ananicy_file_name(rule->name);
                r = file ? write_rule(dest, file, rule, &c, force) : -ENOMEM;
                if (r > 0) {
                        (*ret_written)++;
                        *ret_lossy += c.n_lost > 0;
                } else if (r == 0)
                        r = diag_add(diag, LOG_ERR, rule->origin.path, rule->origin.line, "%s: not written", rule->name);
                ananicy_conversion_done(&c);
        }
        return r;
}

int cmd_import(int argc, char **argv) {
        static const struct option opts[] = {
                { "force", no_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        bool force = false;
        int c, r;

        while ((c = getopt_long(argc, argv, "fh", opts, NULL)) >= 0) {
                switch (c) {
                case 'f':
                        force = true;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                default:
                        return EXIT_USAGE;
                }
        }
        if (argc - optind != 3 || strcmp(argv[optind], "ananicy") != 0) {
                fprintf(stderr, "Usage: qosctl import ananicy [--force] SRC DEST; see --help\n");
                return EXIT_USAGE;
        }
        const char *src = argv[optind + 1], *dest = argv[optind + 2];

        if (mkdir(dest, 0755) < 0 && errno != EEXIST) {
                fprintf(stderr, "qosctl import: cannot create %s: %m\n", dest);
                return EXIT_FAIL;
        }

        AnanicyTree t;
        DiagList diag = {};
        size_t written = 0, lossy = 0;
        r = ananicy_tree_load(&t, src, &diag);
        if (r >= 0)
                r = import_tree(&t, dest, force, &diag, &written, &lossy);
        (void) diag_list_sort(&diag); /* unsorted is still readable */
        cli_print_diags(&diag);
        if (r < 0)
                fprintf(stderr, "qosctl import: %s: %s\n", src, strerror(-r));
        else
                printf("%zu of %zu rules written to %s, %zu with settings not carried over\n", written, t.n_rules,
                       dest, lossy);
        size_t errors = diag_list_count(&diag, LOG_ERR);
        ananicy_tree_done(&t);
        diag_list_clear(&diag);
        return r < 0 || errors > 0 ? EXIT_FAIL : EXIT_OK;
}
