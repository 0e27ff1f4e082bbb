/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The group layer's crash-recovery primitives, callable from the shell
 * tests (the daemon calls the same functions at start):
 *
 *   qos-test-groups recover [KEEP_TID...]   prints "moved N"
 *   qos-test-groups remove-empty            prints "left N"
 *
 * recover keeps the listed threads where they are, as the daemon keeps
 * those a rule still wants there, and moves every other one back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/group.h"

typedef struct Keep {
        char **tids;
        int n;
} Keep;

static bool keep_listed(pid_t tid, QClass group, void *userdata) {
        const Keep *k = userdata;
        for (int i = 0; i < k->n; i++)
                if (atoi(k->tids[i]) == tid)
                        return true;
        return false;
}

int main(int argc, char **argv) {
        if (argc >= 2 && strcmp(argv[1], "recover") == 0) {
                Keep k = { argv + 2, argc - 2 };
                int r = group_recover(keep_listed, &k);
                if (r < 0)
                        return 1;
                printf("moved %d\n", r);
                return 0;
        }
        if (argc == 2 && strcmp(argv[1], "remove-empty") == 0) {
                printf("left %d\n", group_remove_all_empty());
                return 0;
        }
        fprintf(stderr, "usage: %s recover [KEEP_TID...] | remove-empty\n", argv[0]);
        return 2;
}
