/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Without libFuzzer: run a target over the files and directories given
 * (the committed corpus), so every build and sanitizer run checks that the
 * seeds and past findings still pass. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/file-read.h"
#include "core/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = read_text_file(path, RULE_FILE_MAX, &buf, &len);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(-r));
                return r;
        }
        LLVMFuzzerTestOneInput((const uint8_t *) buf, len);
        return 1;
}

static int run_path(const char *path) {
        struct stat st;
        if (stat(path, &st) < 0) {
                perror(path);
                return -1;
        }
        if (!S_ISDIR(st.st_mode))
                return run_file(path);

        struct dirent **names;
        int n = scandir(path, &names, NULL, alphasort), total = 0;
        if (n < 0) {
                perror(path);
                return -1;
        }
        for (int i = 0; i < n; i++) {
                char *p;
                if (names[i]->d_name[0] != '.' && asprintf(&p, "%s/%s", path, names[i]->d_name) > 0) {
                        int r = run_path(p);
                        free(p);
                        if (r < 0)
                                total = -1;
                        else if (total >= 0)
                                total += r;
                }
                free(names[i]);
        }
        free(names);
        return total;
}

int main(int argc, char **argv) {
        int total = 0;
        for (int i = 1; i < argc; i++) {
                int r = run_path(argv[i]);
                if (r < 0)
                        return EXIT_FAILURE;
                total += r;
        }
        /* An empty corpus would pass without testing anything. */
        if (total == 0) {
                fprintf(stderr, "no inputs\n");
                return EXIT_FAILURE;
        }
        printf("%d inputs\n", total);
        return EXIT_SUCCESS;
}
