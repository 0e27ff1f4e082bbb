/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A small hash map from a PID/TID to a pointer: the daemon looks a task up
 * on every proc connector event, so this is open addressing with linear
 * probing and backward-shift deletion (no tombstones to rot under a fork
 * storm). Values are not owned. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct PidMapSlot {
        pid_t key;              /* 0: empty (PID 0 is never a task we track) */
        void *value;
} PidMapSlot;

typedef struct PidMap {
        PidMapSlot *slots;
        size_t n_slots;         /* a power of two, or 0 */
        size_t n_items;
} PidMap;

#define PID_MAP_INIT ((PidMap) {})

void pid_map_clear(PidMap *m);
size_t pid_map_size(const PidMap *m);
void *pid_map_get(const PidMap *m, pid_t key);
/* Insert or replace; -ENOMEM, -EINVAL for key <= 0. */
int pid_map_put(PidMap *m, pid_t key, void *value);
/* Returns the removed value, or NULL. */
void *pid_map_remove(PidMap *m, pid_t key);

/* Iterate: `size_t i = 0; pid_t k; void *v; while (pid_map_next(m, &i, &k, &v))`.
 * Removing the current key while iterating may skip or repeat entries that
 * shifted back; collect keys first if you need to remove many. */
bool pid_map_next(const PidMap *m, size_t *i, pid_t *ret_key, void **ret_value);
