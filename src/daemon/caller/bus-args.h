/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The arguments of the broker's methods, read and checked in one place
 * before anything else looks at them: the only code that handles bytes a
 * caller chose, and so the fuzz target (tests/fuzz/fuzz-bus-args.c).
 * sd-bus has already checked the signature; this checks the values. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

#include "core/qclass.h"

/* The contract's bound on class names (data/org.qosd.QoS1.Broker.md). */
#define BUS_ARGS_CLASS_NAME_MAX 63

typedef struct SetThreadClassArgs {
        pid_t tid;
        uint64_t start_time;
        QClass class;
        int relpri;
} SetThreadClassArgs;

/* Values as decoded: -EINVAL with a message for people in *ret_why. */
int bus_args_check_set_thread_class(int32_t tid, uint64_t start_time, const char *class, int32_t relpri,
                                  SetThreadClassArgs *ret, const char **ret_why);

/* Read "itsi" from msg and check it; -EINVAL (with error set to InvalidArgs)
 * or the sd-bus error. */
int bus_args_read_set_thread_class(sd_bus_message *msg, SetThreadClassArgs *ret, sd_bus_error *error);

typedef struct BeginOverrideArgs {
        pid_t waiter, owner;
        uint64_t waiter_start, owner_start;
        QClass class;
        uint64_t lock;          /* 0 for BeginOverride, which names none */
} BeginOverrideArgs;

/* BeginOverride's "itits" and BeginLockOverride's "ititst" (with_lock):
 * both TIDs positive, both start times given, a class by name, a lock
 * that is not 0; -EINVAL with a message in *ret_why. */
int bus_args_check_begin_override(int32_t waiter, uint64_t waiter_start, int32_t owner, uint64_t owner_start,
                                const char *class, bool with_lock, uint64_t lock, BeginOverrideArgs *ret,
                                const char **ret_why);
int bus_args_read_begin_override(sd_bus_message *msg, bool with_lock, BeginOverrideArgs *ret, sd_bus_error *error);

/* Read "ai" (at most max entries, each > 0) into a new array; -EINVAL
 * (InvalidArgs) or -ENOMEM. */
int bus_args_read_pids(sd_bus_message *msg, size_t max, pid_t **ret, size_t *ret_n, sd_bus_error *error);
