/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stddef.h>

#include "lib/attr-table.h"
#include "lib/lib-lock.h"
#include "core/macro.h"

typedef struct AttrEntry {
        const pthread_attr_t *attr;   /* NULL: a free slot */
        QClass class;
        int relpri;
} AttrEntry;

/* Guarded by LIB_LOCK_ATTR. Fixed size: attribute objects with a class
 * live from pthread_attr_init() to pthread_create(), so a handful exist at
 * a time, and a bound keeps objects destroyed without qos_attr_destroy()
 * from growing it without end. */
static AttrEntry table[ATTR_TABLE_MAX];

static AttrEntry *find(const pthread_attr_t *attr) {
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (table[i].attr == attr)
                        return &table[i];
        return NULL;
}

int attr_table_set(const pthread_attr_t *attr, QClass c, int relpri) {
        int r = 0;

        lib_lock(LIB_LOCK_ATTR);
        AttrEntry *e = find(attr);
        if (c == QCLASS_UNSPECIFIED) {
                if (e)
                        *e = (AttrEntry) {};
        } else {
                if (!e)
                        e = find(NULL);
                if (e)
                        *e = (AttrEntry) { .attr = attr, .class = c, .relpri = relpri };
                else
                        r = -ENOSPC;
        }
        lib_unlock(LIB_LOCK_ATTR);
        return r;
}

void attr_table_get(const pthread_attr_t *attr, QClass *ret_class, int *ret_relpri) {
        lib_lock(LIB_LOCK_ATTR);
        const AttrEntry *e = find(attr);
        *ret_class = e ? e->class : QCLASS_UNSPECIFIED;
        *ret_relpri = e ? e->relpri : 0;
        lib_unlock(LIB_LOCK_ATTR);
}
