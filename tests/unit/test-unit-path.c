/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Naming a process's systemd unit from its cgroup path, as the desktops
 * and services of a systemd machine lay them out, and the records qosd
 * keeps of the units it weighed. No root. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "units/unit-path.h"
#include "groups/unit-state.h"

static void check_unit(const char *path, bool user, uid_t uid, const char *name, bool subtree) {
        UnitRef u;
        assert_int_equal(unit_ref_from_cgroup(path, &u), 0);
        assert_int_equal(u.user, user);
        assert_int_equal(u.uid, uid);
        assert_string_equal(u.name, name);
        assert_int_equal(u.in_subtree, subtree);
        /* The unit's cgroup is a prefix ending in the unit's name. */
        assert_true(u.cgroup_len >= strlen(name));
        assert_memory_equal(path + u.cgroup_len - strlen(name), name, strlen(name));
}

static void check_none(const char *path, int err) {
        UnitRef u;
        assert_int_equal(unit_ref_from_cgroup(path, &u), err);
}

static void test_system_units(void **state) {
        check_unit("/system.slice/cron.service", false, 0, "cron.service", false);
        check_unit("/user.slice/user-1000.slice/session-2.scope", false, 0, "session-2.scope", false);
        check_unit("/system.slice/system-getty.slice/getty@tty1.service", false, 0, "getty@tty1.service", false);
}

static void test_user_units(void **state) {
        const char *base = "/user.slice/user-1000.slice/user@1000.service";
        char p[512];
        snprintf(p, sizeof p, "%s/app.slice/app-gnome-firefox-4242.scope", base);
        check_unit(p, true, 1000, "app-gnome-firefox-4242.scope", false);
        snprintf(p, sizeof p, "%s/app.slice/vte-spawn-0f1e2d3c.scope", base);
        check_unit(p, true, 1000, "vte-spawn-0f1e2d3c.scope", false);
        snprintf(p, sizeof p, "%s/session.slice/org.gnome.Shell@wayland.service", base);
        check_unit(p, true, 1000, "org.gnome.Shell@wayland.service", false);
        snprintf(p, sizeof p, "%s/app.slice/app-org.kde.kate@0a1b.service", base);
        check_unit(p, true, 1000, "app-org.kde.kate@0a1b.service", false);
        check_unit("/user.slice/user-0.slice/user@0.service/app.slice/x.scope", true, 0, "x.scope", false);
}

static void test_delegated_subtree(void **state) {
        check_unit("/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-x.scope/sub", true, 1000,
                   "app-flatpak-x.scope", true);
        check_unit("/system.slice/docker-abc.scope/init.scope", false, 0, "docker-abc.scope", true);
}

static void test_nothing_to_weigh(void **state) {
        check_none("/", -ENOENT);
        check_none("/init.scope", -ENOENT);
        check_none("/system.slice", -ENOENT);
        check_none("/user.slice/user-1000.slice/user@1000.service", -ENOENT);
        check_none("/user.slice/user-1000.slice/user@1000.service/init.scope", -ENOENT);
        check_none("/qos.background", -ENOENT);
}

static void test_hostile_paths(void **state) {
        check_none("", -EINVAL);
        check_none("system.slice/x.service", -EINVAL);
        check_none("/system.slice/a b.service", -EINVAL);
        check_none("/system.slice/a\nb.service", -EINVAL);
        char longname[600];
        memset(longname, 'a', sizeof longname);
        longname[0] = '/';
        strcpy(longname + 500, ".service");
        check_none(longname, -EINVAL);
        /* A user manager's number must be one. */
        check_unit("/user.slice/user@x.service/app.slice/y.scope", false, 0, "user@x.service", true);
        check_unit("/user.slice/user@99999999999999999999.service/y.scope", false, 0,
                   "user@99999999999999999999.service", true);
}

static void test_records_round_trip(void **state) {
        UnitClaim c = { .unit = { .user = true, .uid = 1000 }, .class = QCLASS_BACKGROUND, .weight = 0, .moved = true };
        UnitClaim back;
        char line[512];
        strcpy(c.unit.name, "qos-background-42-9000.scope");
        assert_int_equal(unit_claim_format(&c, line, sizeof line), 0);
        assert_int_equal(unit_claim_parse(line, &back), 0);
        assert_int_equal(back.unit.user, true);
        assert_int_equal(back.unit.uid, 1000);
        assert_string_equal(back.unit.name, c.unit.name);
        assert_int_equal(back.class, QCLASS_BACKGROUND);
        assert_int_equal(back.weight, 0);
        assert_true(back.moved);
        assert_false(back.foreign);
}

static void test_records_rejected(void **state) {
        UnitClaim c;
        assert_int_equal(unit_claim_parse("U1 s 0 background 0 0 0 x.scope trailing\n", &c), -EINVAL);
        assert_int_equal(unit_claim_parse("U1 s 5 background 0 0 0 x.scope\n", &c), -EINVAL); /* system has uid 0 */
        assert_int_equal(unit_claim_parse("U1 u 1000 fast 0 0 0 x.scope\n", &c), -EINVAL);
        assert_int_equal(unit_claim_parse("U1 u 1000 background 0 2 0 x.scope\n", &c), -EINVAL);
        assert_int_equal(unit_claim_parse("U1 u 1000 background 0 0 0 ../../etc\n", &c), -EINVAL);
        assert_int_equal(unit_claim_parse("U2 u 1000 background 0 0 0 x.scope\n", &c), -EINVAL);
        assert_int_equal(unit_claim_parse("", &c), -EINVAL);
        assert_int_equal(unit_claim_parse("U1 u 1000 user-interactive 1000 0 1 app-x.scope\n", &c), 0);
        assert_true(c.foreign);
}

/* The records file as a hostile local user might leave it: a FIFO (must not
 * block), a symlink (not followed), garbage and far too many lines. */
static void test_state_file_hostile(void **state) {
        char dir[] = "/tmp/qos-unit-state.XXXXXX", path[64], other[64], why[256];
        UnitClaim **list = NULL;
        size_t n = 99;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/units", dir);
        snprintf(other, sizeof other, "%s/other", dir);

        assert_int_equal(unit_state_load(path, &list, &n, why, sizeof why), -ENOENT);
        assert_int_equal(mkfifo(path, 0600), 0);
        assert_int_equal(unit_state_load(path, &list, &n, why, sizeof why), -EINVAL);
        unlink(path);

        FILE *f = fopen(other, "w");
        assert_non_null(f);
        fputs("U1 s 0 background 0 0 0 x.scope\n", f);
        fclose(f);
        assert_int_equal(symlink(other, path), 0);
        assert_int_equal(unit_state_load(path, &list, &n, why, sizeof why), -ELOOP);
        unlink(path);

        f = fopen(path, "w");
        assert_non_null(f);
        fputs("garbage\n\n", f);
        for (int i = 0; i < UNIT_STATE_MAX + 100; i++)
                fprintf(f, "U1 u 1000 background 0 0 0 app-%d.scope\n", i);
        fclose(f);
        assert_int_equal(unit_state_load(path, &list, &n, why, sizeof why), 0);
        assert_int_equal(n, UNIT_STATE_MAX);
        assert_string_equal(list[0]->unit.name, "app-0.scope");

        /* Saved and loaded back: the same records. */
        assert_int_equal(unit_state_save(path, list, 3, why, sizeof why), 0);
        for (size_t i = 0; i < n; i++)
                free(list[i]);
        free(list);
        assert_int_equal(unit_state_load(path, &list, &n, why, sizeof why), 0);
        assert_int_equal(n, 3);
        assert_string_equal(list[2]->unit.name, "app-2.scope");
        for (size_t i = 0; i < n; i++)
                free(list[i]);
        free(list);
        unlink(path);
        unlink(other);
        rmdir(dir);
}

static void free_claims(UnitClaim **list, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(list[i]);
        free(list);
}

static void assert_file_is(const char *path, const char *content) {
        char buf[128] = "";
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        assert_non_null(fgets(buf, sizeof buf, f));
        fclose(f);
        assert_string_equal(buf, content);
}

/* The directory as the state file's (runtime-dir.h): one that another user
 * owns or others may write to is neither read nor written, nor is a
 * symbolic link in the file's place; each refusal says why, and once the
 * directory is sound the records are written again. */
static void test_state_dir_refused(void **state) {
        char dir[] = "/tmp/qos-unit-dir.XXXXXX", path[64], other[64], why[256];
        const char *record = "U1 s 0 background 1 0 0 x.scope\n";
        UnitClaim **list = NULL;
        size_t n = 0;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/units", dir);
        snprintf(other, sizeof other, "%s/other", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(record, f);
        fclose(f);
        assert_int_equal(unit_state_load(path, &list, &n, why, sizeof why), 0);
        assert_int_equal(n, 1);

        /* Writable by its group: a member could have put the records there. */
        assert_int_equal(chmod(dir, 0775), 0);
        UnitClaim **none = NULL;
        size_t n_none = 0;
        assert_int_equal(unit_state_load(path, &none, &n_none, why, sizeof why), -EPERM);
        assert_non_null(strstr(why, "writable by its group"));
        assert_int_equal(unit_state_save(path, list, n, why, sizeof why), -EPERM);
        assert_non_null(strstr(why, "writable by its group"));
        unit_state_remove(path);
        assert_file_is(path, record);
        assert_int_equal(chmod(dir, 0755), 0);

        /* Another user's directory (root can give it away to test this). */
        if (geteuid() == 0) {
                assert_int_equal(chown(dir, 65534, 65534), 0);
                assert_int_equal(unit_state_load(path, &none, &n_none, why, sizeof why), -EPERM);
                assert_non_null(strstr(why, "belongs to uid 65534"));
                assert_int_equal(unit_state_save(path, list, n, why, sizeof why), -EPERM);
                assert_int_equal(chown(dir, 0, 0), 0);
        }

        /* A symbolic link in the file's place: neither followed nor replaced. */
        assert_int_equal(rename(path, other), 0);
        assert_int_equal(symlink(other, path), 0);
        assert_int_equal(unit_state_save(path, list, n, why, sizeof why), -ELOOP);
        assert_non_null(strstr(why, "symbolic link"));
        unit_state_remove(path);
        struct stat st;
        assert_int_equal(lstat(path, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_file_is(other, record);
        assert_int_equal(unlink(path), 0);

        /* Sound again: written, read back, removed. */
        assert_int_equal(unit_state_save(path, list, n, why, sizeof why), 0);
        free_claims(list, n);
        assert_int_equal(unit_state_load(path, &list, &n, why, sizeof why), 0);
        assert_int_equal(n, 1);
        free_claims(list, n);
        unit_state_remove(path);
        assert_int_equal(access(path, F_OK), -1);
        unlink(other);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_system_units),   cmocka_unit_test(test_user_units),
                cmocka_unit_test(test_delegated_subtree), cmocka_unit_test(test_nothing_to_weigh),
                cmocka_unit_test(test_hostile_paths),  cmocka_unit_test(test_records_round_trip),
                cmocka_unit_test(test_records_rejected), cmocka_unit_test(test_state_file_hostile),
                cmocka_unit_test(test_state_dir_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
