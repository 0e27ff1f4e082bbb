/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl foreground: the processes qosd treats as what the user is looking
 * at, which may have user-interactive threads. Normally the compositor
 * sets them; this is the same call for root and for scripts. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bus-client.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/proc.h"
#include "core/term-escape.h"

static void help(void) {
        printf("Usage: qosctl foreground [PID...]\n"
               "       qosctl foreground --clear\n"
               "       qosctl foreground --auto\n\n"
               "Without arguments, list the processes in the foreground (PID and name).\n"
               "With PIDs, make exactly these the foreground; --clear empties it;\n"
               "--auto forgets what any source said: ForegroundGate= decides again.\n"
               "Threads that asked for user-interactive while their process was not in\n"
               "the foreground move up when it enters and down again when it leaves.\n"
               "Setting needs root or the ForegroundUser=/ForegroundGroup= of qosd.conf.\n");
}

static int list(void) {
        sd_bus_message *reply = NULL;
        const void *data;
        size_t size;
        int gate = 0;
        int r = cli_bus_call(NULL, "GetForeground", &reply, "");
        if (r != 0)
                return r;
        r = sd_bus_message_read_array(reply, 'i', &data, &size);
        if (r >= 0)
                r = sd_bus_message_read(reply, "b", &gate);
        if (r < 0) {
                sd_bus_message_unref(reply);
                fprintf(stderr, "qosctl foreground: unexpected reply from qosd\n");
                return EXIT_FAIL;
        }
        for (size_t i = 0; i < size / sizeof(int32_t); i++) {
                int32_t pid;
                char comm[PROC_COMM_MAX];
                memcpy(&pid, (const char *) data + i * sizeof pid, sizeof pid);
                _cleanup_free_ char *name = proc_comm(pid, pid, comm) >= 0 ? term_escape(comm) : NULL;
                printf("%d %s\n", pid, name ?: "?");
        }
        if (!gate)
                fprintf(stderr, "qosctl foreground: no source has set the foreground; `qosctl status` "
                                "shows the policy in force (ForegroundGate=, see qosd(8))\n");
        sd_bus_message_unref(reply);
        return EXIT_OK;
}

int cmd_foreground(int argc, char **argv) {
        static const struct option opts[] = {
                { "clear", no_argument, NULL, 'C' },
                { "auto", no_argument, NULL, 'A' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        bool clear = false, automatic = false;
        int c;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
                if (c == 'h') {
                        help();
                        return EXIT_OK;
                }
                if (c == 'C')
                        clear = true;
                else if (c == 'A')
                        automatic = true;
                else
                        return EXIT_USAGE;
        }
        size_t n = (size_t) (argc - optind);
        if ((clear || automatic) && (n > 0 || (clear && automatic))) {
                fprintf(stderr, "qosctl foreground: --clear and --auto take no PIDs, and not both\n");
                return EXIT_USAGE;
        }
        if (automatic) {
                sd_bus_message *reply = NULL;
                int r = cli_bus_call(NULL, "ResetForeground", &reply, "");
                sd_bus_message_unref(reply);
                return r;
        }
        if (!clear && n == 0)
                return list();
        _cleanup_free_ pid_t *pids = calloc(n + 1, sizeof *pids);
        if (!pids)
                return EXIT_FAIL;
        for (size_t i = 0; i < n; i++)
                if (cli_parse_pid(argv[optind + (int) i], &pids[i]) < 0)
                        return EXIT_USAGE;
        sd_bus_message *reply = NULL;
        int r = cli_bus_call_pids("SetForeground", pids, n, &reply);
        sd_bus_message_unref(reply);
        return r;
}
