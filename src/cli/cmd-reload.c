/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl reload: have qosd load the rules again (atomically). */
#include <stdio.h>

#include "cli/bus-client.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/term-escape.h"

static void help(void) {
        printf("Usage: qosctl reload\n\n"
               "Ask qosd to load the rules again. The new rules replace the running\n"
               "ones only if every file loads without errors; otherwise the errors are\n"
               "printed (file:line) and the previous rules stay in force. Root with\n"
               "CAP_SYS_NICE only.\n");
}

int cmd_reload(int argc, char **argv) {
        sd_bus_message *reply = NULL;
        const char *result;
        int r = cli_parse_help_only(argc, argv, help);
        if (r >= 0)
                return r;
        r = cli_bus_call(NULL, "Reload", &reply, "");
        if (r == 0 && sd_bus_message_read(reply, "s", &result) > 0) {
                _cleanup_free_ char *text = term_escape_lines(result); /* it names the users' files */
                printf("%s\n", text ?: "?");
        }
        sd_bus_message_unref(reply);
        return r;
}
