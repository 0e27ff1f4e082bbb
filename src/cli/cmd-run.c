/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl run: put ourselves in a class, then exec the command (like nice). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void help(void) {
        printf("Usage: qosctl run [-c CLASS] [-v] COMMAND [ARGS...]\n\n"
               "Run COMMAND in CLASS (default: background, which anyone may choose).\n\n"
               "  -c, --class CLASS  user-interactive, user-initiated, utility, background\n"
               "  -v, --verbose      print what changed before running COMMAND\n"
               "  -h, --help         show this help\n");
}

int cmd_run(int argc, char **argv) {
        static const struct option opts[] = {
                { "class", required_argument, NULL, 'c' },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        QClass class = QCLASS_BACKGROUND;
        bool verbose = false;
        int c, r;

        while ((c = getopt_long(argc, argv, "+c:vh", opts, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        if (cli_parse_class(optarg, &class) < 0)
                                return EXIT_USAGE;
                        break;
                case 'v':
                        verbose = true;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                default:
                        return EXIT_USAGE;
                }
        }
        if (optind >= argc) {
                fprintf(stderr, "qosctl run: no command given\n");
                return EXIT_USAGE;
        }

        r = cli_apply_to_thread(gettid(), class, verbose, false);
        if (r != EXIT_OK)
                return r;

        fflush(stdout); /* -v output must not be lost in exec */
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "qosctl run: %s: %s\n", argv[optind], strerror(errno));
        /* The shell's convention: 127 not found, 126 found but not runnable. */
        return errno == ENOENT ? 127 : 126;
}
