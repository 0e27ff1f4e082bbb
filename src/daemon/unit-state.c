/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "unit-state.h"

#define LINE_MAX_LEN (UNIT_NAME_MAX + 96)

int unit_claim_format(const UnitClaim *c, char *buf, size_t size) {
        int n = snprintf(buf, size, "U1 %c %u %s %" PRIu64 " %d %d %s\n", c->unit.user ? 'u' : 's',
                         (unsigned) c->unit.uid, qclass_to_string(c->class), c->weight, c->moved, c->foreign,
                         c->unit.name);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

int unit_claim_parse(const char *line, UnitClaim *ret) {
        char kind, class[32], name[UNIT_NAME_MAX];
        unsigned uid;
        uint64_t weight;
        int moved, foreign, end = 0;
        UnitClaim c = {};

        if (sscanf(line, "U1 %c %u %31s %" SCNu64 " %d %d %255s%n", &kind, &uid, class, &weight, &moved, &foreign,
                   name, &end) != 7)
                return -EINVAL;
        if (line[end] != '\0' && line[end] != '\n')
                return -EINVAL;
        if ((kind != 'u' && kind != 's') || (kind == 's' && uid != 0) || uid == (unsigned) -1)
                return -EINVAL;
        if ((moved != 0 && moved != 1) || (foreign != 0 && foreign != 1) || !unit_name_valid(name))
                return -EINVAL;
        c.class = qclass_from_string(class);
        if (!qclass_is_valid(c.class))
                return -EINVAL;
        c.unit.user = kind == 'u';
        c.unit.uid = uid;
        snprintf(c.unit.name, sizeof c.unit.name, "%s", name);
        c.weight = weight;
        c.moved = moved;
        c.foreign = foreign;
        *ret = c;
        return 0;
}

int unit_state_save(const char *path, UnitClaim *const *claims, size_t n) {
        char tmp[PATH_MAX], line[LINE_MAX_LEN];
        int r = 0;

        if (snprintf(tmp, sizeof tmp, "%s.new", path) >= (int) sizeof tmp)
                return -ENAMETOOLONG;
        (void) unlink(tmp);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return negative_errno();
        _cleanup_fclose_ FILE *f = fdopen(fd, "w");
        if (!f) {
                close(fd);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n && r >= 0; i++)
                if ((r = unit_claim_format(claims[i], line, sizeof line)) >= 0 && fputs(line, f) < 0)
                        r = -EIO;
        if (r >= 0 && (fflush(f) != 0 || ferror(f)))
                r = -EIO;
        if (r >= 0 && rename(tmp, path) < 0)
                r = negative_errno();
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

int unit_state_read(FILE *f, const char *path, UnitClaim ***ret, size_t *ret_n) {
        char line[LINE_MAX_LEN];
        UnitClaim **list = NULL;
        size_t n = 0;
        unsigned lineno = 0;

        while (n < UNIT_STATE_MAX && fgets(line, sizeof line, f)) {
                UnitClaim c, *p, **nl;
                lineno++;
                if (unit_claim_parse(line, &c) < 0) {
                        log_warning("%s:%u: not a unit record, ignored", path, lineno);
                        continue;
                }
                if (!(p = malloc(sizeof *p)) || !(nl = realloc(list, (n + 1) * sizeof *nl))) {
                        free(p);
                        break;
                }
                *p = c;
                list = nl;
                list[n++] = p;
        }
        *ret = list;
        *ret_n = n;
        return 0;
}

int unit_state_load(const char *path, UnitClaim ***ret, size_t *ret_n) {
        struct stat st;
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -EINVAL; /* only qosd writes here: anything else is not its file */
        }
        _cleanup_fclose_ FILE *f = fdopen(fd, "r");
        if (!f) {
                close(fd);
                return -ENOMEM;
        }
        return unit_state_read(f, path, ret, ret_n);
}

void unit_state_remove(const char *path) {
        (void) unlink(path);
}
