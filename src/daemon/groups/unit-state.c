/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/macro.h"
#include "state/runtime-dir.h"
#include "groups/unit-state.h"

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

int unit_state_save(const char *path, UnitClaim *const *claims, size_t n, char *why, size_t size) {
        _cleanup_free_ char *name = NULL;
        char line[LINE_MAX_LEN];
        int r = 0;

        _cleanup_close_ int dirfd = runtime_path_open(path, true, &name, why, size);
        if (dirfd < 0)
                return dirfd;
        /* As for the state file: something that is not qosd's own file in
         * its place means someone meddles; leave it for the admin to see. */
        r = runtime_file_check(dirfd, name, why, size);
        if (r < 0)
                return r;
        int fd = runtime_file_new(dirfd, name, why, size);
        if (fd < 0)
                return fd;
        _cleanup_fclose_ FILE *f = fdopen(fd, "w");
        if (!f) {
                close(fd);
                runtime_file_discard(dirfd, name);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n && r >= 0; i++)
                if ((r = unit_claim_format(claims[i], line, sizeof line)) >= 0 && fputs(line, f) < 0)
                        r = negative_errno();
        if (r >= 0 && fflush(f) != 0)
                r = negative_errno(); /* ENOSPC in a full /run */
        else if (r >= 0 && ferror(f))
                r = -EIO;
        if (r < 0) {
                runtime_file_discard(dirfd, name);
                snprintf(why, size, "cannot write %s: %s", name, strerror(-r));
                return r;
        }
        return runtime_file_commit(dirfd, name, why, size);
}

int unit_records_save(UnitRecords *rec, UnitClaim *const *claims, size_t n) {
        char why[sizeof rec->reason] = "";
        int r = unit_state_save(rec->path, claims, n, why, sizeof why);
        if (r >= 0) {
                if (rec->error < 0)
                        log_notice("%s: the units qosd weighs are recorded again", rec->path);
                rec->error = 0;
                rec->reason[0] = '\0';
                return 0;
        }
        if (!*why)
                snprintf(why, sizeof why, "%s", strerror(-r));
        if (rec->error >= 0 || strcmp(rec->reason, why) != 0)
                log_warning("%s: the units qosd weighs are not recorded: %s. Their weights still apply; a qosd "
                            "killed now cannot put them back. Trying again every %llu s.", rec->path, why,
                            (unsigned long long) (RUNTIME_RETRY_USEC / 1000000));
        rec->error = r;
        snprintf(rec->reason, sizeof rec->reason, "%s", why);
        return r;
}

void unit_records_status(const UnitRecords *rec, char *buf, size_t size) {
        snprintf(buf, size, "; records off: %s (%s); tried again every %llu s", rec->reason, rec->path,
                 (unsigned long long) (RUNTIME_RETRY_USEC / 1000000));
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

int unit_state_load(const char *path, UnitClaim ***ret, size_t *ret_n, char *why, size_t size) {
        int r;
        _cleanup_fclose_ FILE *f = runtime_path_fopen_read(path, why, size, &r);
        if (!f)
                return r;
        return unit_state_read(f, path, ret, ret_n);
}

void unit_state_remove(const char *path) {
        _cleanup_free_ char *name = NULL;
        char why[256];
        _cleanup_close_ int dirfd = runtime_path_open(path, false, &name, why, sizeof why);
        /* A file refused as not qosd's is left alone, as when it was refused. */
        if (dirfd >= 0 && runtime_file_check(dirfd, name, why, sizeof why) >= 0)
                (void) unlinkat(dirfd, name, 0);
}
