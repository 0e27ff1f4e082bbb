/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every value of a D-Bus message, in order, whatever its signature: the
 * one walk behind the fuzzer's printing of arguments and its checks of
 * replies. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

typedef union WalkValue {
        uint8_t y;
        int b;
        int16_t n;
        uint16_t q;
        int32_t i;
        uint32_t u;
        int64_t x;
        uint64_t t;
        double d;
        const char *s;  /* s, o and g */
        int h;
} WalkValue;

typedef struct WalkVisitor {
        /* A basic value; type is its D-Bus type character. */
        int (*basic)(char type, const WalkValue *v, void *userdata);
        /* Entering and leaving a container: 'a', 'r' (struct), 'e' (dict
         * entry) or 'v', with its contents' signature. Either may be NULL. */
        int (*enter)(char type, const char *contents, void *userdata);
        int (*leave)(char type, void *userdata);
} WalkVisitor;

/* Rewinds m (sealed) and visits all of it. A visitor's negative return
 * stops the walk and is returned. */
int walk_message(sd_bus_message *m, const WalkVisitor *v, void *userdata);

/* The values as one line for people, e.g. `i 42, s "utility", a[i 1, i 2]`;
 * strings escaped (\xNN) and cut, the whole cut at size. */
int walk_format(sd_bus_message *m, char *buf, size_t size);

/* A string as walk_format writes it, cut after max bytes of s. */
void walk_quote(const char *s, size_t max, char *buf, size_t size);
