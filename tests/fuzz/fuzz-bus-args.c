/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target for the broker's argument decoding (bus-args.c): the
 * input is turned into a real sd-bus method call with whatever signature
 * and values it spells, and every reader takes it, as qosd's handlers do
 * (SetThreadClass, BeginOverride and BeginLockOverride, an array of PIDs).
 * Input: a sequence of (type byte, payload): 'i' 4 bytes, 't' 8 bytes,
 * 's' a length byte and that many bytes, 'a' a count byte and 4 bytes per
 * element (an "ai"), 'b' 1 byte; any other byte ends the message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "caller/bus-args.h"
#include "focus/foreground.h"

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

static int append(sd_bus_message *m, const uint8_t *data, size_t size) {
        size_t i = 0;
        while (i < size) {
                uint8_t t = data[i++];
                int r;
                if (t == 'i' && i + 4 <= size) {
                        int32_t v;
                        memcpy(&v, data + i, 4);
                        i += 4;
                        r = sd_bus_message_append_basic(m, 'i', &v);
                } else if (t == 't' && i + 8 <= size) {
                        uint64_t v;
                        memcpy(&v, data + i, 8);
                        i += 8;
                        r = sd_bus_message_append_basic(m, 't', &v);
                } else if (t == 's' && i < size) {
                        size_t n = data[i++];
                        char s[256];
                        if (n > size - i)
                                n = size - i;
                        memcpy(s, data + i, n);
                        s[n] = 0;
                        i += n;
                        r = sd_bus_message_append_basic(m, 's', s); /* refuses invalid UTF-8 */
                } else if (t == 'a' && i < size) {
                        size_t n = data[i++];
                        if (n * 4 > size - i)
                                n = (size - i) / 4;
                        r = sd_bus_message_append_array(m, 'i', data + i, n * 4);
                        i += n * 4;
                } else if (t == 'b' && i < size) {
                        int v = data[i++] & 1;
                        r = sd_bus_message_append_basic(m, 'b', &v);
                } else
                        return 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        sd_bus_message *m = NULL;
        if (sd_bus_message_new_method_call(fuzz_bus(), &m, "org.qosd.QoS1", "/org/qosd/QoS1",
                                           "org.qosd.QoS1.Manager", "SetThreadClass") < 0)
                abort();
        if (append(m, data, size) >= 0 && sd_bus_message_seal(m, 1, 0) >= 0) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                SetThreadClassArgs a;
                if (bus_args_read_set_thread_class(m, &a, &error) >= 0) {
                        /* What passed is what the contract allows. */
                        if (a.tid <= 0 || a.start_time == 0 || !qclass_is_valid(a.class) || a.relpri > 0 ||
                            a.relpri < -15)
                                __builtin_trap();
                } else if (!sd_bus_error_is_set(&error))
                        __builtin_trap(); /* every refusal says why */
                sd_bus_error_free(&error);

                /* BeginOverride and BeginLockOverride read the same bytes. */
                for (int with_lock = 0; with_lock <= 1; with_lock++) {
                        BeginOverrideArgs b;
                        if (sd_bus_message_rewind(m, true) < 0)
                                break;
                        if (bus_args_read_begin_override(m, with_lock, &b, &error) >= 0) {
                                if (b.waiter <= 0 || b.owner <= 0 || b.waiter_start == 0 || b.owner_start == 0 ||
                                    !qclass_is_valid(b.class) || (with_lock && b.lock == 0) ||
                                    (!with_lock && b.lock != 0))
                                        __builtin_trap();
                        } else if (!sd_bus_error_is_set(&error))
                                __builtin_trap();
                        sd_bus_error_free(&error);
                }

                pid_t *pids = NULL;
                size_t n = 0;
                if (sd_bus_message_rewind(m, true) >= 0 &&
                    bus_args_read_pids(m, FOREGROUND_MAX, &pids, &n, &error) >= 0) {
                        if (n > FOREGROUND_MAX)
                                __builtin_trap();
                        for (size_t i = 0; i < n; i++)
                                if (pids[i] <= 0)
                                        __builtin_trap();
                        free(pids);
                }
                sd_bus_error_free(&error);
        }
        sd_bus_message_unref(m);
        return 0;
}
