/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl run: put ourselves in a class, then exec the command (like nice;
 * qosd grants the class when it runs; where systemd runs the machine,
 * background also gets an idle scope);
 * with --preload, load libqos-preload.so into it so that the rules give
 * the command and every thread it creates their class from the start. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/class-request.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/proc.h"
#include "qos-config.h"
#include "cli/run-scope.h"

static void help(void) {
        printf("Usage: qosctl run [-c CLASS] [-P] [-v] COMMAND [ARGS...]\n\n"
               "Run COMMAND in CLASS (default: background, which anyone may choose).\n"
               "When qosd runs, qosctl asks it for the class, and qosd keeps it across the\n"
               "exec; a class it holds lower is said on stderr, a refusal is an error.\n\n"
               "  -c, --class CLASS  user-interactive, user-initiated, utility, background\n"
               "  -P, --preload      load libqos-preload.so into COMMAND and its children:\n"
               "                     the rules give each process and thread its class when\n"
               "                     it starts or is renamed (without -c: no class of our own)\n"
               "  -v, --verbose      print qosd's answer and what changed before running COMMAND\n"
               "  -h, --help         show this help\n");
}

/* Ours after any the caller had: a sanitizer runtime, for one, must stay
 * first, and a wrapper of pthread_create() before ours still reaches ours. */
static int add_preload(bool verbose) {
        _cleanup_free_ char *lib = NULL, *value = NULL;
        const char *old = getenv("LD_PRELOAD");
        int r = cli_preload_library(&lib);

        if (r < 0) {
                fprintf(stderr, "qosctl run: cannot find libqos-preload.so (%s): %s\n", QOS_PRELOAD_PATH,
                        strerror(-r));
                return EXIT_FAIL;
        }
        if (asprintf(&value, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", lib) < 0 ||
            setenv("LD_PRELOAD", value, 1) < 0)
                return EXIT_FAIL;
        if (verbose)
                printf("LD_PRELOAD=%s\n", value);
        return EXIT_OK;
}

/* Our own thread into the class before the exec, which keeps it: through
 * qosd when it runs (it may hold a class lower, which is said on stderr,
 * and remembers the request across the exec), else directly. */
static int enter_class(QClass c, bool verbose) {
        _cleanup_(class_request_close) ClassRequester q = {};
        char text[400];
        ClassAnswer a;

        if (class_request_open(&q, "run") == 0)
                return cli_apply_to_thread(gettid(), c, verbose, false, NULL);
        int r = class_request_thread(&q, gettid(), c, verbose, false, &a);
        if (r != EXIT_OK)
                return r;
        if (a.granted != a.asked)
                fprintf(stderr, "qosctl run: %s\n", class_answer_format(&a, text, sizeof text));
        else if (verbose)
                printf("%s\n", class_answer_format(&a, text, sizeof text));
        return EXIT_OK;
}

int cmd_run(int argc, char **argv) {
        CliTaskOptions o = { .class = QCLASS_UNSPECIFIED };
        int r;

        r = cli_parse_task_options(argc, argv, "+c:vPh", help, &o);
        if (r >= 0)
                return r;
        cli_use_cpu_kinds("/sys");
        if (optind >= argc) {
                fprintf(stderr, "qosctl run: no command given\n");
                return EXIT_USAGE;
        }
        if (o.class == QCLASS_UNSPECIFIED && !o.preload)
                o.class = QCLASS_BACKGROUND;

        if (o.preload) {
                r = add_preload(o.verbose);
                if (r != EXIT_OK)
                        return r;
        }
        if (o.class == QCLASS_BACKGROUND) {
                r = run_scope_enter(o.verbose);
                if (r < 0)
                        fprintf(stderr, "qosctl run: no idle scope from systemd (%s); per-thread knobs only\n",
                                strerror(-r));
        }
        if (o.class != QCLASS_UNSPECIFIED) {
                r = enter_class(o.class, o.verbose);
                if (r != EXIT_OK)
                        return r;
        }

        fflush(stdout); /* -v output must not be lost in exec */
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "qosctl run: %s: %s\n", argv[optind], strerror(errno));
        /* The shell's convention: 127 not found, 126 found but not runnable. */
        return errno == ENOENT ? 127 : 126;
}
