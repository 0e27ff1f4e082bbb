/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl reload: have qosd load the rules again (atomically). */
#include <getopt.h>
#include <stdio.h>

#include "bus-client.h"
#include "cli.h"

static void help(void) {
        printf("Usage: qosctl reload\n\n"
               "Ask qosd to load the rules again. The new rules replace the running\n"
               "ones only if every file loads without errors; otherwise the errors are\n"
               "printed (file:line) and the previous rules stay in force. Root only.\n");
}

int cmd_reload(int argc, char **argv) {
        static const struct option opts[] = {
                { "help", no_argument, NULL, 'h' },
                {},
        };
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        const char *result;
        int c, r;

        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
                if (c == 'h') {
                        help();
                        return EXIT_OK;
                }
                return EXIT_USAGE;
        }
        r = cli_bus_connect(&bus);
        if (r == 0)
                r = cli_bus_call(bus, "Reload", &reply, "");
        if (r == 0 && sd_bus_message_read(reply, "s", &result) > 0)
                printf("%s\n", result);
        sd_bus_message_unref(reply);
        sd_bus_unref(bus);
        return r;
}
