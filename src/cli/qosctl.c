/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl: dispatch to one subcommand; global options only. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/macro.h"
#include "qos-config.h"
#include "config/rules.h"

static const CliCommand commands[] = {
        { "classes", cmd_classes, "show what each class sets on this kernel" },
        { "run", cmd_run, "run a command in a class (like nice)" },
        { "set", cmd_set, "set the class of a thread or of all threads of a process" },
        { "get", cmd_get, "show the class and knobs of a thread or process" },
        { "check", cmd_check, "check application rule files; show the merged result" },
        { "import", cmd_import, "convert another tool's rules (ananicy) into qos.d files" },
        { "ps", cmd_ps, "list the threads qosd manages, with class and rule (-a: all)" },
        { "top", cmd_top, "a live view of the threads by class: CPU share and run-queue wait" },
        { "explain", cmd_explain, "why a thread has its class, per qosd" },
        { "status", cmd_status, "what qosd is doing: rules, threads, events, reloads" },
        { "reload", cmd_reload, "have qosd load the rules again" },
        { "profile", cmd_profile, "show or switch the system-wide scheduler profile" },
        { "foreground", cmd_foreground, "show or set the processes in the foreground" },
};

static void help(FILE *f) {
        _cleanup_free_ char *preload = NULL;
        (void) cli_preload_library(&preload);

        fprintf(f,
                "Usage: qosctl [--root DIR] COMMAND [ARGS...]\n"
                "\n"
                "Quality-of-service classes for Linux threads.\n"
                "\n"
                "Commands:\n");
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
        fprintf(f,
                "\n"
                "Options:\n"
                "  -R, --root DIR  prefix for the configuration directories (also $QOS_ROOT)\n"
                "  -h, --help      show this help\n"
                "  -V, --version   show the version\n"
                "\n"
                "Files (the directories below --root DIR when given):\n"
                "  programs' rules     " QOS_VENDOR_DIR "/" QOS_APPS_SUBDIR "\n"
                "  the admin's rules   " QOS_ADMIN_DIR "/" QOS_APPS_SUBDIR "\n"
                "  this boot's rules   " QOS_RUNTIME_DIR "/" QOS_APPS_SUBDIR "\n"
                "  qosd's settings     " QOS_ADMIN_DIR "/qosd.conf\n"
                "  preload library     %s\n"
                "\n"
                "'qosctl COMMAND --help' describes a command. See qosctl(1).\n",
                preload ? preload : QOS_PRELOAD_PATH " (not found)");
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "root", required_argument, NULL, 'R' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {},
        };
        int c;

        /* '+': stop at the subcommand; its options are its own. */
        while ((c = getopt_long(argc, argv, "+R:hV", opts, NULL)) >= 0) {
                switch (c) {
                case 'R':
                        cli_set_root(optarg);
                        break;
                case 'h':
                        help(stdout);
                        return EXIT_OK;
                case 'V':
                        printf("qosctl %s\n", QOS_VERSION);
                        return EXIT_OK;
                default:
                        return EXIT_USAGE;
                }
        }
        if (optind >= argc) {
                help(stderr);
                return EXIT_USAGE;
        }

        const char *name = argv[optind];
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (strcmp(commands[i].name, name) == 0) {
                        argv += optind;
                        argc -= optind;
                        optind = 0; /* reset getopt for the subcommand */
                        return commands[i].run(argc, argv);
                }
        fprintf(stderr, "qosctl: unknown command '%s'; see 'qosctl --help'\n", name);
        return EXIT_USAGE;
}
