/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "caller/bus-args.h"
#include "core/class-relpri.h"

int bus_args_check_set_thread_class(int32_t tid, uint64_t start_time, const char *class, int32_t relpri,
                                  SetThreadClassArgs *ret, const char **ret_why) {
        if (tid <= 0)
                return *ret_why = "thread ID must be positive", -EINVAL;
        if (start_time == 0)
                return *ret_why = "start time must be the thread's, not 0", -EINVAL;
        /* Canonical names only: the contract is exact so that every client
         * and every log line spells a class one way. */
        QClass c = QCLASS_UNSPECIFIED;
        if (class && strnlen(class, BUS_ARGS_CLASS_NAME_MAX + 1) <= BUS_ARGS_CLASS_NAME_MAX)
                for (QClass q = QCLASS_BACKGROUND; q < _QCLASS_MAX; q++)
                        if (strcmp(class, qclass_to_string(q)) == 0)
                                c = q;
        if (c == QCLASS_UNSPECIFIED)
                return *ret_why = "class must be user-interactive, user-initiated, utility or background",
                       -EINVAL;
        if (!qclass_relpri_is_valid(relpri))
                return *ret_why = "relative priority must be 0 .. -15", -EINVAL;
        *ret = (SetThreadClassArgs) { .tid = tid, .start_time = start_time, .class = c, .relpri = relpri };
        return 0;
}

int bus_args_read_set_thread_class(sd_bus_message *msg, SetThreadClassArgs *ret, sd_bus_error *error) {
        int32_t tid, relpri;
        uint64_t start;
        const char *class, *why;
        int r = sd_bus_message_read(msg, "itsi", &tid, &start, &class, &relpri);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Cannot read the arguments: %s",
                                         strerror(-r));
        r = bus_args_check_set_thread_class(tid, start, class, relpri, ret, &why);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid argument: %s.", why);
        return 0;
}

int bus_args_check_begin_override(int32_t waiter, uint64_t waiter_start, int32_t owner, uint64_t owner_start,
                                const char *class, bool with_lock, uint64_t lock, BeginOverrideArgs *ret,
                                const char **ret_why) {
        if (waiter <= 0 || owner <= 0)
                return *ret_why = "thread IDs must be positive", -EINVAL;
        if (waiter_start == 0 || owner_start == 0)
                return *ret_why = "start times must be the threads', not 0", -EINVAL;
        /* Any name libqos's parser knows, as BeginOverride always took. */
        int c = class && strnlen(class, BUS_ARGS_CLASS_NAME_MAX + 1) <= BUS_ARGS_CLASS_NAME_MAX
                        ? qclass_from_string(class)
                        : -EINVAL;
        if (c < 0 || !qclass_is_valid(c))
                return *ret_why = "class must be user-interactive, user-initiated, utility or background",
                       -EINVAL;
        if (with_lock && lock == 0)
                return *ret_why = "the lock's address must not be 0", -EINVAL;
        *ret = (BeginOverrideArgs) { .waiter = waiter, .waiter_start = waiter_start, .owner = owner,
                                     .owner_start = owner_start, .class = c, .lock = with_lock ? lock : 0 };
        return 0;
}

int bus_args_read_begin_override(sd_bus_message *msg, bool with_lock, BeginOverrideArgs *ret, sd_bus_error *error) {
        int32_t waiter, owner;
        uint64_t waiter_start, owner_start, lock = 0;
        const char *class, *why;
        int r = sd_bus_message_read(msg, "itits", &waiter, &waiter_start, &owner, &owner_start, &class);
        if (r >= 0 && with_lock)
                r = sd_bus_message_read(msg, "t", &lock);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Cannot read the arguments: %s",
                                         strerror(-r));
        r = bus_args_check_begin_override(waiter, waiter_start, owner, owner_start, class, with_lock, lock, ret,
                                        &why);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid argument: %s.", why);
        return 0;
}

int bus_args_read_pids(sd_bus_message *msg, size_t max, pid_t **ret, size_t *ret_n, sd_bus_error *error) {
        const void *data;
        size_t size;
        int r = sd_bus_message_read_array(msg, 'i', &data, &size);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Cannot read the PIDs: %s",
                                         strerror(-r));
        size_t n = size / sizeof(int32_t);
        if (n > max)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "At most %zu PIDs, not %zu.", max, n);
        pid_t *pids = calloc(n + 1, sizeof *pids);
        if (!pids)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int32_t v;
                memcpy(&v, (const char *) data + i * sizeof v, sizeof v); /* no alignment promise */
                if (v <= 0) {
                        free(pids);
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid PID %d.", v);
                }
                pids[i] = v;
        }
        *ret = pids;
        *ret_n = n;
        return 0;
}
