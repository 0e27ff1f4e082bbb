/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Links inside a user's home are followed, links out of it and through
 * /proc are not, and a refusal looks the same whether the target exists.
 * A throw-away tree under $TMPDIR stands for the home; no root needed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tree-open.h"

typedef struct Tree {
        char top[256];          /* the temporary directory */
        char home[512];         /* top/home: the tree */
        int fd;
} Tree;

static void path_of(const Tree *t, const char *rel, char *buf) {
        snprintf(buf, PATH_MAX, "%s/%s", t->home, rel);
}

static void make_file(const Tree *t, const char *rel, const char *text) {
        char p[PATH_MAX];
        path_of(t, rel, p);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void make_link(const Tree *t, const char *rel, const char *target) {
        char p[PATH_MAX];
        path_of(t, rel, p);
        assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state) {
        static Tree t;
        const char *tmp = getenv("TMPDIR") ?: "/tmp";
        char p[PATH_MAX];

        snprintf(t.top, sizeof t.top, "%s/test-tree-open.XXXXXX", tmp);
        assert_non_null(mkdtemp(t.top));
        snprintf(t.home, sizeof t.home, "%s/home", t.top);
        assert_int_equal(mkdir(t.home, 0755), 0);
        path_of(&t, "dotfiles", p);
        assert_int_equal(mkdir(p, 0755), 0);
        path_of(&t, "apps.d", p);
        assert_int_equal(mkdir(p, 0755), 0);
        make_file(&t, "dotfiles/x.conf", "in the home\n");
        snprintf(p, sizeof p, "%s/outside.conf", t.top);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fclose(f);
        t.fd = open(t.home, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(t.fd >= 0);
        *state = &t;
        return 0;
}

static int teardown(void **state) {
        Tree *t = *state;
        char cmd[PATH_MAX + 16];
        close(t->fd);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->top);
        assert_int_equal(system(cmd), 0);
        return 0;
}

/* tree_open() on home/rel: the fd's file's first line, or the error. */
static int open_rel(const Tree *t, const char *rel, char *line, size_t size) {
        char p[PATH_MAX];
        path_of(t, rel, p);
        int fd = tree_open(t->fd, t->home, p, O_RDONLY);
        if (fd < 0)
                return fd;
        ssize_t n = read(fd, line, size - 1);
        close(fd);
        assert_true(n >= 0);
        line[n] = '\0';
        return 0;
}

static void expect_opens(const Tree *t, const char *rel) {
        char line[64];
        int r = open_rel(t, rel, line, sizeof line);
        if (r < 0)
                fail_msg("%s: %s", rel, strerror(-r));
        assert_string_equal(line, "in the home\n");
}

static void expect_error(const Tree *t, const char *rel, int error) {
        char line[64];
        int r = open_rel(t, rel, line, sizeof line);
        if (r != -error)
                fail_msg("%s: expected %s, got %s", rel, strerror(error), r < 0 ? strerror(-r) : "opened");
}

static void test_relative(void **state) {
        assert_string_equal(tree_relative("/home/a", "/home/a/x/y"), "x/y");
        assert_string_equal(tree_relative("/home/a/", "/home/a//x"), "x");
        assert_string_equal(tree_relative("/home/a", "/home/a"), "");
        assert_null(tree_relative("/home/a", "/home/ab/x"));
        assert_null(tree_relative("/home/a", "/home"));
        assert_null(tree_relative("/home/a", "x"));
        assert_string_equal(tree_relative("/", "/etc/passwd"), "etc/passwd");
}

/* What dotfile managers make: relative links (stow), absolute ones
 * (ln -s ~/dotfiles/x.conf), and a linked directory on the way. */
static void test_links_within(void **state) {
        Tree *t = *state;
        char abs[PATH_MAX];
        expect_opens(t, "dotfiles/x.conf");
        make_link(t, "apps.d/rel.conf", "../dotfiles/x.conf");
        expect_opens(t, "apps.d/rel.conf");
        path_of(t, "dotfiles/x.conf", abs);
        make_link(t, "apps.d/abs.conf", abs);
        expect_opens(t, "apps.d/abs.conf");
        make_link(t, "apps.d/chain.conf", "abs.conf");
        expect_opens(t, "apps.d/chain.conf");
        make_link(t, "cfg", "dotfiles");
        expect_opens(t, "cfg/x.conf");
        expect_opens(t, "cfg/../dotfiles/./x.conf");
}

/* Out of the home, and through /proc: refused, target there or not. */
static void test_links_out(void **state) {
        Tree *t = *state;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/outside.conf", t->top);
        make_link(t, "apps.d/out-abs.conf", p);
        expect_error(t, "apps.d/out-abs.conf", EXDEV);
        snprintf(p, sizeof p, "%s/missing.conf", t->top);
        make_link(t, "apps.d/out-missing.conf", p);
        expect_error(t, "apps.d/out-missing.conf", EXDEV);
        make_link(t, "apps.d/out-rel.conf", "../../outside.conf");
        expect_error(t, "apps.d/out-rel.conf", EXDEV);
        make_link(t, "apps.d/up-and-back.conf", "../../home/dotfiles/x.conf");
        expect_error(t, "apps.d/up-and-back.conf", EXDEV);
        make_link(t, "apps.d/cwd.conf", "/proc/self/cwd/dotfiles/x.conf");
        expect_error(t, "apps.d/cwd.conf", EXDEV);
        make_link(t, "apps.d/proc.conf", "/proc/1/cwd/no-such.conf");
        expect_error(t, "apps.d/proc.conf", EXDEV);
        make_link(t, "proc", "/proc/self");
        expect_error(t, "proc/cwd/dotfiles/x.conf", EXDEV);
        expect_error(t, "../outside.conf", EXDEV);
        char home_path[PATH_MAX];
        snprintf(home_path, sizeof home_path, "%s/../outside.conf", t->home);
        assert_int_equal(tree_open(t->fd, t->home, home_path, O_RDONLY), -EXDEV);
        assert_int_equal(tree_open(t->fd, t->home, "/etc/passwd", O_RDONLY), -EXDEV);
}

static void test_errors_within(void **state) {
        Tree *t = *state;
        expect_error(t, "dotfiles/missing.conf", ENOENT);
        make_link(t, "apps.d/dangling.conf", "../dotfiles/missing.conf");
        expect_error(t, "apps.d/dangling.conf", ENOENT);
        make_link(t, "apps.d/loop.conf", "loop.conf");
        expect_error(t, "apps.d/loop.conf", ELOOP);
        expect_error(t, "dotfiles/x.conf/y", ENOTDIR);
}

/* openat2 answers ENOSYS from here on, as under a seccomp filter older
 * than it (systemd 252's @system-service): the walk by hand must give
 * the same answers. */
static int refuse_openat2(void) {
        struct sock_filter filter[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
                return -errno;
        return syscall(SYS_openat2, AT_FDCWD, ".", NULL, 0) < 0 && errno == ENOSYS ? 0 : -EIO;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_relative),
                cmocka_unit_test_setup_teardown(test_links_within, setup, teardown),
                cmocka_unit_test_setup_teardown(test_links_out, setup, teardown),
                cmocka_unit_test_setup_teardown(test_errors_within, setup, teardown),
        };
        int failed = cmocka_run_group_tests_name("with openat2", tests, NULL, NULL);
        if (refuse_openat2() < 0) {
                fprintf(stderr, "cannot install the seccomp filter that refuses openat2\n");
                return 1;
        }
        return failed + cmocka_run_group_tests_name("openat2 refused (ENOSYS)", tests, NULL, NULL);
}
