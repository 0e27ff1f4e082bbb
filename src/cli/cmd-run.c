/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl run: put ourselves in a class, then exec the command (like nice). */
#include <errno.h>
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
        CliTaskOptions o = { .class = QCLASS_BACKGROUND };
        int r;

        r = cli_parse_task_options(argc, argv, "+c:vh", help, &o);
        if (r >= 0)
                return r;
        if (optind >= argc) {
                fprintf(stderr, "qosctl run: no command given\n");
                return EXIT_USAGE;
        }

        r = cli_apply_to_thread(gettid(), o.class, o.verbose, false);
        if (r != EXIT_OK)
                return r;

        fflush(stdout); /* -v output must not be lost in exec */
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "qosctl run: %s: %s\n", argv[optind], strerror(errno));
        /* The shell's convention: 127 not found, 126 found but not runnable. */
        return errno == ENOENT ? 127 : 126;
}
