/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu-mask.h"
#include "core/macro.h"

void cpu_mask_set(CpuMask *m, unsigned cpu) {
        if (cpu < CPU_MASK_MAX)
                m->w[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

bool cpu_mask_test(const CpuMask *m, unsigned cpu) {
        return cpu < CPU_MASK_MAX && (m->w[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned cpu_mask_count(const CpuMask *m) {
        unsigned n = 0;
        for (size_t i = 0; i < ELEMENTSOF(m->w); i++)
                n += (unsigned) __builtin_popcountll(m->w[i]);
        return n;
}

bool cpu_mask_is_empty(const CpuMask *m) {
        return cpu_mask_count(m) == 0;
}

bool cpu_mask_equal(const CpuMask *a, const CpuMask *b) {
        return memcmp(a->w, b->w, sizeof a->w) == 0;
}

CpuMask cpu_mask_and(const CpuMask *a, const CpuMask *b) {
        CpuMask r;
        for (size_t i = 0; i < ELEMENTSOF(r.w); i++)
                r.w[i] = a->w[i] & b->w[i];
        return r;
}

CpuMask cpu_mask_minus(const CpuMask *a, const CpuMask *b) {
        CpuMask r;
        for (size_t i = 0; i < ELEMENTSOF(r.w); i++)
                r.w[i] = a->w[i] & ~b->w[i];
        return r;
}

/* A CPU number: digits only, below CPU_MASK_MAX. */
static int parse_cpu(const char **p, unsigned *ret) {
        unsigned long v = 0;
        const char *s = *p;
        if (!isdigit((unsigned char) *s))
                return -EINVAL;
        while (isdigit((unsigned char) *s)) {
                v = v * 10 + (unsigned long) (*s++ - '0');
                if (v >= CPU_MASK_MAX)
                        return -ERANGE;
        }
        *p = s;
        *ret = (unsigned) v;
        return 0;
}

static const char *skip_blanks(const char *s) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
                s++;
        return s;
}

int cpu_mask_parse(const char *list, CpuMask *ret) {
        CpuMask m = {};
        const char *p = skip_blanks(list);

        while (*p) {
                unsigned first, last;
                int r = parse_cpu(&p, &first);
                if (r < 0)
                        return r;
                last = first;
                if (*p == '-') {
                        p++;
                        r = parse_cpu(&p, &last);
                        if (r < 0)
                                return r;
                        if (last < first)
                                return -EINVAL;
                }
                for (unsigned c = first; c <= last; c++)
                        cpu_mask_set(&m, c);
                p = skip_blanks(p);
                if (*p == ',')
                        p = skip_blanks(p + 1);
                else if (*p)
                        return -EINVAL;
        }
        *ret = m;
        return 0;
}

const char *cpu_mask_format(const CpuMask *m, char *buf, size_t size) {
        size_t len = 0;
        if (size == 0)
                return buf;
        buf[0] = '\0';
        for (unsigned c = 0; c < CPU_MASK_MAX; c++) {
                if (!cpu_mask_test(m, c))
                        continue;
                unsigned last = c;
                while (last + 1 < CPU_MASK_MAX && cpu_mask_test(m, last + 1))
                        last++;
                char part[24];
                int n = last == c ? snprintf(part, sizeof part, "%s%u", len ? "," : "", c)
                                  : snprintf(part, sizeof part, "%s%u-%u", len ? "," : "", c, last);
                if (n < 0 || len + (size_t) n + 4 > size) {
                        snprintf(buf + len, size - len, "...");
                        return buf;
                }
                memcpy(buf + len, part, (size_t) n + 1);
                len += (size_t) n;
                c = last;
        }
        if (len == 0)
                snprintf(buf, size, "none");
        return buf;
}
