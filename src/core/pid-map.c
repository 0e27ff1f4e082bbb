/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/pid-map.h"

static size_t slot_of(const PidMap *m, pid_t key) {
        /* PIDs are dense and sequential; a multiplicative hash spreads them. */
        return (size_t) (((uint32_t) key * 2654435761u) & (m->n_slots - 1));
}

void pid_map_clear(PidMap *m) {
        free(m->slots);
        *m = PID_MAP_INIT;
}

size_t pid_map_size(const PidMap *m) {
        return m->n_items;
}

static PidMapSlot *find(const PidMap *m, pid_t key) {
        if (m->n_slots == 0 || key <= 0)
                return NULL;
        for (size_t i = slot_of(m, key);; i = (i + 1) & (m->n_slots - 1)) {
                if (m->slots[i].key == key)
                        return &m->slots[i];
                if (m->slots[i].key == 0)
                        return NULL;
        }
}

void *pid_map_get(const PidMap *m, pid_t key) {
        PidMapSlot *s = find(m, key);
        return s ? s->value : NULL;
}

static void insert_slot(PidMap *m, pid_t key, void *value) {
        size_t i = slot_of(m, key);
        while (m->slots[i].key != 0 && m->slots[i].key != key)
                i = (i + 1) & (m->n_slots - 1);
        if (m->slots[i].key == 0)
                m->n_items++;
        m->slots[i] = (PidMapSlot) { key, value };
}

static int grow(PidMap *m) {
        size_t n = m->n_slots ? m->n_slots * 2 : 64;
        PidMapSlot *old = m->slots;
        size_t n_old = m->n_slots;

        m->slots = calloc(n, sizeof *m->slots);
        if (!m->slots) {
                m->slots = old;
                return -ENOMEM;
        }
        m->n_slots = n;
        m->n_items = 0;
        for (size_t i = 0; i < n_old; i++)
                if (old[i].key != 0)
                        insert_slot(m, old[i].key, old[i].value);
        free(old);
        return 0;
}

int pid_map_put(PidMap *m, pid_t key, void *value) {
        if (key <= 0)
                return -EINVAL;
        /* Keep the load under 1/2 so probes stay short. */
        if ((m->n_items + 1) * 2 > m->n_slots) {
                int r = grow(m);
                if (r < 0)
                        return r;
        }
        insert_slot(m, key, value);
        return 0;
}

void *pid_map_remove(PidMap *m, pid_t key) {
        PidMapSlot *s = find(m, key);
        if (!s)
                return NULL;
        void *value = s->value;
        size_t mask = m->n_slots - 1, hole = (size_t) (s - m->slots);

        /* Backward-shift: move later members of the probe run into the hole
         * when their home slot does not lie between the hole and them. */
        for (size_t j = (hole + 1) & mask; m->slots[j].key != 0; j = (j + 1) & mask) {
                size_t home = slot_of(m, m->slots[j].key);
                if (((j - home) & mask) >= ((j - hole) & mask)) {
                        m->slots[hole] = m->slots[j];
                        hole = j;
                }
        }
        m->slots[hole] = (PidMapSlot) {};
        m->n_items--;
        return value;
}

bool pid_map_next(const PidMap *m, size_t *i, pid_t *ret_key, void **ret_value) {
        for (; *i < m->n_slots; (*i)++)
                if (m->slots[*i].key != 0) {
                        if (ret_key)
                                *ret_key = m->slots[*i].key;
                        if (ret_value)
                                *ret_value = m->slots[*i].value;
                        (*i)++;
                        return true;
                }
        return false;
}
