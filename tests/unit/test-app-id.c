/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* App IDs from the unit names desktops give apps, and from a Flatpak
 * instance's .flatpak-info. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "units/app-id.h"

static void expect_unit(const char *unit, const char *id) {
        char got[APP_ID_MAX];
        int r = app_id_from_unit(unit, got);
        if (r < 0)
                fail_msg("%s: %d, expected %s", unit, r, id);
        assert_string_equal(got, id);
}

static void expect_no(const char *unit, int want) {
        char got[APP_ID_MAX];
        assert_int_equal(app_id_from_unit(unit, got), want);
}

static void test_units(void **state) {
        expect_unit("app-gnome-org.gnome.Nautilus-1234.scope", "org.gnome.Nautilus");
        expect_unit("app-flatpak-org.mozilla.firefox-5678.scope", "org.mozilla.firefox");
        expect_unit("app-org.kde.konsole@a1b2c3.service", "org.kde.konsole");
        expect_unit("app-kde-org.kde.dolphin@0f.service", "org.kde.dolphin");
        expect_unit("app-org.example.App.service", "org.example.App");
        expect_unit("app-gnome-org.example.My\\x2dApp-42.scope", "org.example.My-App");
        expect_unit("app-firefox-99.scope", "firefox"); /* no launcher: a desktop file's name */
        expect_unit("snap.firefox.firefox-3b1e5c4a-0e1f-4a2b-9c3d-1234567890ab.scope", "firefox_firefox");
        expect_no("session-2.scope", -ENOENT);
        expect_no("cron.service", -ENOENT);
        expect_no("app.slice", -ENOENT);
        expect_no("app-.scope", -EINVAL);
        expect_no("app-gnome-org.x\\x2fy-1.scope", -EINVAL); /* only \x2d is an ID's */
        expect_no("app-gnome-..evil-1.scope", -EINVAL);
        expect_no("snap.nodot-1.scope", -EINVAL);
}

static void test_cgroups(void **state) {
        char got[APP_ID_MAX];
        assert_int_equal(app_id_from_cgroup("/user.slice/user-1000.slice/user@1000.service/app.slice/"
                                            "app-flatpak-org.mozilla.firefox-5678.scope", got), 0);
        assert_string_equal(got, "org.mozilla.firefox");
        /* Deeper: the app's own subtree still belongs to its unit. */
        assert_int_equal(app_id_from_cgroup("/user.slice/user-1000.slice/user@1000.service/app.slice/"
                                            "app-gnome-org.gnome.Nautilus-1234.scope/sub", got), 0);
        assert_string_equal(got, "org.gnome.Nautilus");
        assert_int_equal(app_id_from_cgroup("/user.slice/user-1000.slice/session-2.scope", got), -ENOENT);
        assert_int_equal(app_id_from_cgroup("/", got), -ENOENT);
}

static void test_flatpak_info(void **state) {
        char got[APP_ID_MAX];
        assert_int_equal(app_id_from_flatpak_info("[Application]\nname=org.example.App\nruntime=x\n", got), 0);
        assert_string_equal(got, "org.example.App");
        assert_int_equal(app_id_from_flatpak_info("[Instance]\nname=nope\n[Application]\nname=org.a.B", got), 0);
        assert_string_equal(got, "org.a.B");
        assert_int_equal(app_id_from_flatpak_info("[Runtime]\nname=org.gnome.Platform\n", got), -ENOENT);
        assert_int_equal(app_id_from_flatpak_info("[Application]\nname=\x1b[2J\n", got), -EINVAL);
        assert_int_equal(app_id_from_flatpak_info("", got), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_units),
                cmocka_unit_test(test_cgroups),
                cmocka_unit_test(test_flatpak_info),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
