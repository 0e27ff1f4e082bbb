/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl profile: show or switch the system-wide scheduler profile, held by
 * qosd so that it can put the previous values back when it exits. */
#include <unistd.h>
#include <stdio.h>

#include "cli/bus-client.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/term-escape.h"

static void help(void) {
        printf("Usage: qosctl profile [throughput|interactive|qos|default]\n\n"
               "Without an argument, show the current profile and each knob it touches\n"
               "(scheduler debugfs base_slice_ns and HRTICK, cpufreq governors) with its\n"
               "value and whether it can be changed here. With a name, switch to it\n"
               "(root only); 'default' puts back the values found before. See qosd(8).\n");
}

static int show(void) {
        sd_bus_message *reply = NULL;
        const char *name;
        int r = cli_bus_call(NULL, "GetProfile", &reply, "");
        if (r != 0)
                return r;
        r = sd_bus_message_read(reply, "s", &name);
        if (r > 0) {
                _cleanup_free_ char *n = term_escape(name);
                printf("profile: %s\n", n ?: "?");
                r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        }
        while (r > 0) {
                const char *path, *value, *status;
                r = sd_bus_message_read(reply, "(sss)", &path, &value, &status);
                if (r <= 0)
                        break;
                /* What the kernel's files hold, as qosd read them. */
                _cleanup_free_ char *p = term_escape(path), *v = term_escape(value), *s = term_escape(status);
                if (!p || !v || !s)
                        r = -ENOMEM;
                else
                        printf("  %-52s %-12s %s\n", p, *v ? v : "-", s);
        }
        sd_bus_message_unref(reply);
        return r < 0 ? EXIT_FAIL : EXIT_OK;
}

int cmd_profile(int argc, char **argv) {
        sd_bus_message *reply = NULL;
        const char *report;
        int r = cli_parse_help_only(argc, argv, help);
        if (r >= 0)
                return r;
        if (argc - optind > 1) {
                fprintf(stderr, "qosctl profile: at most one profile name\n");
                return EXIT_USAGE;
        }
        if (optind == argc)
                return show();
        r = cli_bus_call(NULL, "SetProfile", &reply, "s", argv[optind]);
        if (r == 0 && sd_bus_message_read(reply, "s", &report) > 0) {
                _cleanup_free_ char *text = term_escape_lines(report);
                printf("%s\n", text ?: "?");
        }
        sd_bus_message_unref(reply);
        return r;
}
