/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl status: qosd's counters and the result of the last reload, and
 * which CPU scheduler runs (read from sysfs here, not asked of qosd). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/bus-client.h"
#include "cli/cli.h"
#include "core/macro.h"
#include "core/term-escape.h"
#include "core/sched-ext.h"

static void help(void) {
        printf("Usage: qosctl status\n\n"
               "Show what qosd is doing: rules loaded, threads managed, events seen and\n"
               "lost (ENOBUFS), rescans, changes by others it respected, the last reload,\n"
               "the power mode the classes follow, the games and apps playing audio it\n"
               "knows, and which CPU scheduler the kernel runs (the fair class or a\n"
               "sched_ext one).\n");
}

static int print_property(sd_bus_message *reply, const char *name) {
        const char *contents;
        char type;
        int r = sd_bus_message_peek_type(reply, &type, &contents);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'v', contents);
        if (r < 0)
                return r;
        if (strcmp(contents, "t") == 0) {
                uint64_t v;
                r = sd_bus_message_read(reply, "t", &v);
                if (r < 0)
                        return r;
                if (strcmp(name, "LastReloadTime") == 0) {
                        char buf[64] = "never";
                        time_t t = (time_t) (v / 1000000);
                        if (v)
                                strftime(buf, sizeof buf, "%F %T", localtime(&t));
                        printf("%-18s %s\n", name, buf);
                } else
                        printf("%-18s %" PRIu64 "\n", name, v);
        } else if (strcmp(contents, "b") == 0) {
                int v;
                r = sd_bus_message_read(reply, "b", &v);
                if (r < 0)
                        return r;
                printf("%-18s %s\n", name, v ? "yes" : "no");
        } else if (strcmp(contents, "s") == 0) {
                const char *v;
                r = sd_bus_message_read(reply, "s", &v);
                if (r < 0)
                        return r;
                /* LastReloadMessage names the users' rule files, a line each. */
                _cleanup_free_ char *text = term_escape_lines(v);
                if (!text)
                        return -ENOMEM;
                printf("%-18s %s\n", name, text);
        } else
                r = sd_bus_message_skip(reply, contents);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

/* Scheduler=qos in qosd.conf asks for the sched_ext one; whether it runs
 * is the kernel's to say. */
static void print_scheduler(void) {
        SchedExt x;
        char buf[SCHED_EXT_OPS_MAX + 32];
        sched_ext_read(NULL, &x);
        printf("%-18s %s\n", "Scheduler", sched_ext_describe(&x, buf, sizeof buf));
}

int cmd_status(int argc, char **argv) {
        sd_bus_message *reply = NULL;
        int r = cli_parse_help_only(argc, argv, help);
        if (r >= 0)
                return r;
        r = cli_bus_call("org.freedesktop.DBus.Properties", "GetAll", &reply, "s", QOS_BUS_INTERFACE);
        if (r != 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        while (r > 0) {
                const char *name;
                r = sd_bus_message_enter_container(reply, 'e', "sv");
                if (r <= 0)
                        break;
                r = sd_bus_message_read(reply, "s", &name);
                if (r >= 0)
                        r = print_property(reply, name);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = 1;
        }
        sd_bus_message_unref(reply);
        if (r < 0) {
                fprintf(stderr, "qosctl: malformed reply from qosd\n");
                return EXIT_FAIL;
        }
        print_scheduler();
        return EXIT_OK;
}
