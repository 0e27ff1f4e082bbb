/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl explain: why a thread has its class, as qosd sees it. */
#include <stdio.h>

#include "cli/bus-client.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/term-escape.h"

static void help(void) {
        printf("Usage: qosctl explain PID|TID\n\n"
               "Explain a thread's class: what the rules looked at, which rule decided\n"
               "and why (process or thread rule, caps), what qosd set, what the kernel\n"
               "accepted or refused, and whether someone else changed it since.\n"
               "A PID explains the process's main thread. Asks qosd.\n\n"
               "Another user's thread (unless you are root) shows \"hidden: not your\n"
               "process\" for its executable, command line, cgroup, timer slack and a\n"
               "verdict from its owner's own rule file.\n");
}

int cmd_explain(int argc, char **argv) {
        sd_bus_message *reply = NULL;
        pid_t tid;
        int r = cli_parse_help_only(argc, argv, help);
        if (r >= 0)
                return r;
        if (optind + 1 != argc) {
                fprintf(stderr, "qosctl explain: need one PID or TID; see 'qosctl explain --help'\n");
                return EXIT_USAGE;
        }
        if (cli_parse_pid(argv[optind], &tid) < 0)
                return EXIT_USAGE;

        r = cli_bus_call(NULL, "Explain", &reply, "i", (int32_t) tid);
        if (r != 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(ss)");
        while (r > 0) {
                const char *key, *value;
                r = sd_bus_message_read(reply, "(ss)", &key, &value);
                if (r <= 0)
                        break;
                /* The thread's name, its command line, paths: the owner's words. */
                _cleanup_free_ char *k = term_escape(key), *v = term_escape(value);
                if (!k || !v)
                        r = -ENOMEM;
                else
                        printf("%-19s %s\n", k, v);
        }
        sd_bus_message_unref(reply);
        return r < 0 ? EXIT_FAIL : EXIT_OK;
}
