/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target for the escaping of names that others chose: any bytes
 * (up to the first NUL) must come out of utf8_escape() as a string sd-bus
 * takes and back out of utf8_unescape() unchanged; out of file_name_escape()
 * without a '/' and back likewise; and out of term_escape(), straight or
 * after the bus's escaping, with nothing a terminal acts on. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "config/file-name.h"
#include "core/term-escape.h"
#include "core/utf8-escape.h"
#include "core/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sd_bus *fuzz_bus(void) {
        static sd_bus *bus;
        int sv[2];
        if (bus)
                return bus;
        /* A bus that never talks: enough for sd-bus to build messages. */
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || sd_bus_new(&bus) < 0 ||
            sd_bus_set_fd(bus, sv[0], sv[0]) < 0 || sd_bus_start(bus) < 0)
                abort();
        return bus;
}

/* Whether sd-bus takes s as a string: the check that failed qosd's replies. */
static bool bus_takes(const char *s) {
        sd_bus_message *m = NULL;
        if (sd_bus_message_new_method_call(fuzz_bus(), &m, "org.qosd.QoS1", "/org/qosd/QoS1",
                                           "org.qosd.QoS1.Manager", "Fuzz") < 0)
                abort();
        int r = sd_bus_message_append(m, "s", s);
        sd_bus_message_unref(m);
        return r >= 0;
}

/* Valid UTF-8, no C0 control (but a newline where lines is set), no DEL, no C1,
 * no directional override or isolate. */
static void check_terminal(const char *s, bool lines) {
        if (!s)
                abort();
        if (!utf8_is_valid(s))
                __builtin_trap();
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if ((*p < 0x20 && !(lines && *p == '\n')) || *p == 0x7f ||
                    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) ||
                    (*p == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
                                    (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))))
                        __builtin_trap();
}

static void check_shown(const char *s) {
        char *t = term_escape(s), *l = term_escape_lines(s);
        check_terminal(t, false);
        check_terminal(l, true);
        free(t);
        free(l);
}

static void check_round_trip(char *escaped, const char *s, int (*unescape)(const char *, char **)) {
        char *back = NULL;
        if (!escaped)
                abort();
        if (unescape(escaped, &back) < 0 || strcmp(back, s) != 0)
                __builtin_trap();
        free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = strndup((const char *) data, size);
        if (!s)
                return 0;

        char *bus = utf8_escape(s);
        check_round_trip(bus, s, utf8_unescape);
        if (!utf8_is_valid(bus) || !bus_takes(bus))
                __builtin_trap();
        /* Only what must be is escaped: what sd-bus takes reads as it is. */
        if (!strchr(s, '\\') && bus_takes(s) && strcmp(bus, s) != 0)
                __builtin_trap();
        check_shown(s);
        check_shown(bus);

        char *file = file_name_escape(s);
        check_round_trip(file, s, file_name_unescape);
        if (strchr(file, '/') || file[0] == '.' || strlen(file) != file_name_escaped_len(s))
                __builtin_trap();

        free(file);
        free(bus);
        free(s);
        return 0;
}
