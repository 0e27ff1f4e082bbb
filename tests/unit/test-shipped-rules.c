/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rule files qosd ships (conf/apps.d), loaded the way qosd loads its
 * vendor directory: every file parses without an error or a warning, each
 * says why its class, none takes a user's say away (MaxClass=) or raises
 * anything past the foreground gate (user-initiated is not gated), and the
 * processes they are written for match them, the way Debian's packages run
 * them: symlinked and hard-linked names, Python scripts, the browsers'
 * processes and threads. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "test-tree.h"

#define SHIPPED QOS_SHIPPED_RULES

/* Files that may say user-initiated, which qosd applies whether or not
 * the program is in front: an audio session manager reacts to devices
 * being plugged in, whatever window has the focus. */
static const char *const ungated_allowed[] = { "wireplumber.conf" };

static RuleSet *rules;

static int load_shipped(void **state) {
        const char *const dirs[] = { SHIPPED };
        RuleSources src = { .dirs = dirs, .n_dirs = 1 };
        DiagList diag = { 0 };
        assert_int_equal(ruleset_load(&src, &rules, &diag), 0);
        if (diag.n > 0) {
                dump_diags(&diag);
                fail_msg("%zu messages loading %s; shipped files must load clean", diag.n, SHIPPED);
        }
        diag_list_clear(&diag);
        return 0;
}

static int free_shipped(void **state) {
        rules = ruleset_free(rules);
        return 0;
}

static bool is_conf(const char *name) {
        size_t n = strlen(name);
        return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/* Calls check(dir-relative name, whole text) for every shipped file. */
static size_t for_each_file(void (*check)(const char *name, const char *text)) {
        DIR *d = opendir(SHIPPED);
        struct dirent *de;
        size_t n = 0;

        assert_non_null(d);
        while ((de = readdir(d))) {
                if (!is_conf(de->d_name))
                        continue;
                char *path = tree_path(SHIPPED, de->d_name), text[8192];
                FILE *f = fopen(path, "re");
                assert_non_null(f);
                size_t len = fread(text, 1, sizeof text - 1, f);
                assert_true(feof(f));
                text[len] = '\0';
                fclose(f);
                free(path);
                check(de->d_name, text);
                n++;
        }
        closedir(d);
        return n;
}

static void count_only(const char *name, const char *text) {
}

static void test_every_file_loads(void **state) {
        size_t n = for_each_file(count_only);
        assert_true(n >= 60);
        assert_int_equal(ruleset_n_files(rules), n);
}

static bool allowed_ungated(const char *name) {
        for (size_t i = 0; i < sizeof ungated_allowed / sizeof *ungated_allowed; i++)
                if (strcmp(name, ungated_allowed[i]) == 0)
                        return true;
        return false;
}

static void check_policy(const char *name, const char *text) {
        static const char head[] = "# Shipped with qosd (";
        const char *eol = strchr(text, '\n');

        /* The first line says what the program is and why its class. */
        if (strncmp(text, head, strlen(head)) != 0 || !eol || eol - text < (ptrdiff_t) strlen(head) + 3 ||
            strncmp(eol - 2, ").", 2) != 0)
                fail_msg("%s: the first line is not \"# Shipped with qosd (WHY).\"", name);
        if (!strstr(text, "\n# Override: a file of the same name in /etc/qos/apps.d masks this one"))
                fail_msg("%s: no \"# Override:\" line", name);
        /* A vendor's MaxClass= would cap the user's own files too. */
        if (strstr(text, "MaxClass"))
                fail_msg("%s: a shipped file sets no limit; users must be able to override it", name);
        /* Only the admin may exempt a program from the gate (qosd ignores
         * it here, with a warning, which the load already rejects). */
        if (strstr(text, "AllowInteractiveInBackground"))
                fail_msg("%s: AllowInteractiveInBackground= is the admin's to give", name);
        if (strstr(text, "Class=user-initiated") && !allowed_ungated(name))
                fail_msg("%s: user-initiated is not held by the foreground gate; use user-interactive", name);
}

static void test_every_file_says_why_and_leaves_users_the_last_word(void **state) {
        for_each_file(check_policy);
}

typedef struct Case {
        const char *exe;
        const char *cmdline;    /* argv joined by spaces; its first word gives arg0 */
        const char *thread;     /* NULL: the process as a whole */
        const char *app;        /* NULL: no shipped file matches */
        QClass class;
} Case;

#define UI QCLASS_USER_INTERACTIVE
#define IN QCLASS_USER_INITIATED
#define UT QCLASS_UTILITY
#define BG QCLASS_BACKGROUND
#define NONE QCLASS_UNSPECIFIED

#define FF "/usr/lib/firefox-esr/firefox-esr"
#define FF_TAB FF " -contentproc -isForBrowser -prefsHandle 0:27189 -parentBuildID 20261117185949 5 tab"
#define CR "/usr/lib/chromium/chromium"
#define CR_RENDERER CR " --type=renderer --crashpad-handler-pid=0 --lang=en-US --renderer-client-id=5"
#define CR_NETWORK CR " --type=utility --utility-sub-type=network.mojom.NetworkService --lang=en-US"
#define CR_AUDIO CR " --type=utility --utility-sub-type=audio.mojom.AudioService --lang=en-US"
#define CR_GPU CR " --type=gpu-process --gpu-recent-crash-count=0 --ozone-platform=x11"

static const Case cases[] = {
        /* Firefox: one executable for all its processes, told by thread. */
        { FF, FF " --new-window", "firefox-esr", "firefox-esr", UI },
        { FF, FF, "Compositor", "firefox-esr", UI },
        { FF, FF, "Renderer", "firefox-esr", UI },
        { FF, FF, "WRRende~ckend#1", "firefox-esr", UI },
        { FF, FF, "WRScene~ilder#1", "firefox-esr", UI },
        { FF, FF, "WRScene~derLP#1", "firefox-esr", NONE }, /* the low-priority one: defaults */
        { FF, FF, "cubeb r~ thread", "firefox-esr", UI },
        { FF, FF, "IPC I/O Parent", "firefox-esr", UI },
        { FF, FF, "Cache2 I/O", "firefox-esr", UT },
        { FF, FF, "Backgro~Pool #2", "firefox-esr", UT },
        { FF, FF, "BgIOThr~Pool #8", "firefox-esr", UT },
        { FF, FF, "glean.dispatche", "firefox-esr", BG },
        { FF, FF, "DNS Resolver #1", "firefox-esr", NONE },
        { FF, FF_TAB, "Web Content", "firefox-esr", UI },
        { FF, FF_TAB, "Isolated Web Co", "firefox-esr", UI },
        { FF, FF_TAB, "MediaDe~hine #1", "firefox-esr", UI },
        { FF, FF_TAB, "MediaPD~oder #2", "firefox-esr", UI },
        { FF, FF_TAB, "IPC I/O Child", "firefox-esr", UI },
        { FF, FF_TAB, "WebExtensions", "firefox-esr", NONE },
        /* Chromium: renderers and the GPU process by thread; the services
         * are the more specific chromium-services.conf. */
        { CR, CR, "chromium", "chromium", UI },
        { CR, CR, "Chrome_IOThread", "chromium", UI },
        { CR, CR, "CacheThread_Blo", "chromium", UT },
        { CR, CR, "ThreadPoolForeg", "chromium", NONE },
        { CR, CR_RENDERER, "chromium", "chromium", UI },
        { CR, CR_RENDERER, "Compositor", "chromium", UI },
        { CR, CR_RENDERER, "Media", "chromium", UI },
        { CR, CR_GPU, "VizCompositorTh", "chromium", UI },
        { CR, CR_NETWORK, "chromium", "chromium-services", UT },
        { CR, CR_NETWORK, "Chrome_ChildIOT", "chromium-services", UT },
        { CR, CR_AUDIO, "AudioWorkerThre", "chromium-services", UT },
        /* Full paths for user-interactive: the name alone gets nothing. */
        { "/usr/bin/Xwayland", "/usr/bin/Xwayland :0 -rootless", NULL, "Xwayland", UI },
        { "/home/u/bin/Xwayland", "Xwayland", NULL, NULL, NONE },
        { "/usr/bin/kwin_x11", "kwin_x11 -session 10", NULL, "kwin_x11", UI },
        { "/usr/games/gamescope", "gamescope -- game", NULL, "gamescope", UI },
        { "/usr/bin/jackd", "jackd -d alsa", NULL, "jackd", UI },
        { "/usr/bin/pipewire", "pipewire-pulse", NULL, "pipewire", UI }, /* pipewire-pulse is a link */
        /* Launchers stay at the defaults their games inherit. */
        { "/home/u/.local/share/Steam/ubuntu12_32/steam", "/home/u/.local/share/Steam/ubuntu12_32/steam -srt", NULL,
          "steam", UT },
        { "/home/u/.local/share/Steam/ubuntu12_64/fossilize_replay", "fossilize_replay --master-process", NULL,
          "fossilize_replay", BG },
        { "/usr/bin/python3.11", "/usr/bin/python3 /usr/games/lutris", NULL, "lutris", UT },
        { "/usr/bin/python3.11", "lutris", NULL, "lutris", UT },
        { "/opt/Heroic/heroic", "/opt/Heroic/heroic --no-sandbox", NULL, "heroic", UT },
        /* Names as Debian installs them: links, hard links, alternatives. */
        { "/usr/bin/xz", "unxz -T0 big.xz", NULL, "compression", BG },
        { "/usr/bin/zstd", "zstdmt -19 big", NULL, "compression", BG },
        { "/usr/bin/bunzip2", "bunzip2 big.bz2", NULL, "compression", BG },
        { "/usr/bin/lzip.plzip", "lzip -9 big", NULL, "compression", BG },
        { "/usr/bin/gzip", "gzip -cd", NULL, "compression", BG },
        { "/usr/lib/p7zip/7z", "/usr/lib/p7zip/7z a x.7z dir", NULL, "compression", BG },
        { "/usr/bin/unison-2.52", "unison profile", NULL, "unison", BG },
        { "/usr/lib/x86_64-linux-gnu/libexec/baloo_file", "/usr/bin/baloo_file", NULL, "baloo", BG },
        { "/usr/libexec/tracker-miner-fs-3", "/usr/libexec/tracker-miner-fs-3", NULL, "tracker", BG },
        { "/usr/bin/x86_64-linux-gnu-ld.bfd", "ld -o a.out a.o", NULL, "build-tools", BG },
        { "/usr/bin/x86_64-linux-gnu-as", "as -o a.o a.s", NULL, "build-tools", BG },
        { "/usr/lib/gcc/x86_64-linux-gnu/12/lto1", "lto1 -quiet", NULL, "build-tools", BG },
        { "/usr/bin/make", "make -j8", NULL, "make", BG },
        { "/usr/lib/jvm/java-17-openjdk-amd64/bin/javac", "javac -d out Main.java", NULL, "build-tools", BG },
        { "/usr/sbin/clamd", "/usr/sbin/clamd --foreground=true", NULL, "clamav", BG },
        /* Python scripts: python3 runs them, their command line tells. */
        { "/usr/bin/python3.11", "/usr/bin/python3 /usr/bin/borg create ::x /home", NULL, "borg", BG },
        { "/usr/bin/python3.11", "/usr/bin/python3.11 /usr/bin/duplicity full /home file:///b", NULL, "duplicity",
          BG },
        { "/usr/bin/python3.11", "/usr/bin/python3 /usr/bin/unattended-upgrade", NULL, "unattended-upgrade", BG },
        { "/usr/bin/python3.11", "/usr/bin/python3 /usr/bin/unattended-upgrades -d", NULL, "unattended-upgrade", BG },
        { "/usr/bin/python3.11", "/usr/bin/python3 /usr/bin/borgly", NULL, NULL, NONE },
        { "/usr/bin/python3.11", "/usr/bin/python3 -m http.server", NULL, NULL, NONE },
        /* Packages: updates are background, an app that flatpak starts is not. */
        { "/usr/bin/apt-get", "apt-get -y dist-upgrade", NULL, "apt", BG },
        { "/usr/bin/dpkg", "/usr/bin/dpkg --status-fd 67 --configure --pending", NULL, "dpkg", BG },
        { "/usr/libexec/packagekitd", "/usr/libexec/packagekitd", NULL, "packagekitd", BG },
        { "/usr/bin/flatpak", "/usr/bin/flatpak update --appstream", NULL, "flatpak", BG },
        { "/usr/bin/flatpak", "flatpak install -y flathub org.gimp.GIMP", NULL, "flatpak", BG },
        { "/usr/bin/flatpak", "/usr/bin/flatpak run --branch=stable --arch=x86_64 org.mozilla.firefox", NULL, NULL,
          NONE },
        { "/usr/libexec/fwupd/fwupd", "/usr/libexec/fwupd/fwupd", NULL, "fwupd", BG },
        /* Maintenance. */
        { "/usr/sbin/updatedb.plocate", "/usr/sbin/updatedb.plocate", NULL, "updatedb", BG },
        { "/usr/bin/mandb", "/usr/bin/mandb --quiet", NULL, "mandb", BG },
        { "/usr/sbin/logrotate", "/usr/sbin/logrotate /etc/logrotate.conf", NULL, "logrotate", BG },
        { "/usr/sbin/fstrim", "/sbin/fstrim --listed-in /etc/fstab", NULL, "fstrim", BG },
        { "/usr/sbin/anacron", "/usr/sbin/anacron -d -q", NULL, "anacron", BG },
        /* Nothing else. */
        { "/usr/bin/bash", "bash", NULL, NULL, NONE },
        { "/usr/bin/tar", "tar xf x.tar", NULL, NULL, NONE },
};

static void test_programs_match_their_files(void **state) {
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                const Case *c = &cases[i];
                char arg0[256];
                size_t n = strcspn(c->cmdline, " ");
                const char *first = c->cmdline, *slash;

                snprintf(arg0, sizeof arg0, "%.*s", (int) n, first);
                slash = strrchr(arg0, '/');
                ProcessInfo p = {
                        .exe = c->exe,
                        .cmdline = c->cmdline,
                        .arg0 = slash ? slash + 1 : arg0,
                        .comm = slash ? slash + 1 : arg0,
                        .cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/app.scope",
                        .uid = 1000,
                };
                MatchResult m;
                int r = ruleset_match(rules, &p, c->thread, &m);
                const char *app = r == 1 ? m.app : NULL;

                if (!c->app != !app || (app && strcmp(app, c->app) != 0) || m.class != c->class)
                        fail_msg("%s [%s] thread %s: matched %s class %s, expected %s class %s", c->exe, c->cmdline,
                                 c->thread ?: "(process)", app ?: "nothing", qclass_to_string(m.class),
                                 c->app ?: "nothing", qclass_to_string(c->class));
        }
}

/* What an admin does (qos.d(5), docs/default-rules.md): a file named after
 * one program of a family file, matching it by name, decides for it (same
 * specificity, higher directory); a file named like a shipped one, as
 * `qosctl import ananicy` writes them, masks it; under another name, a
 * name-matching file loses to a shipped full-path one. */
static void test_admin_files_override(void **state) {
        char *admin = tree_new();
        tree_write(admin, "gzip.conf", "[Match]\nExecutable=gzip\n[Process]\nClass=utility\n");
        tree_write(admin, "jackd.conf", "[Match]\nExecutable=jackd\n[Process]\nClass=user-initiated\n");
        tree_write(admin, "xwl.conf", "[Match]\nExecutable=Xwayland\n[Process]\nClass=background\n");
        const char *const dirs[] = { SHIPPED, admin };
        RuleSources src = { .dirs = dirs, .n_dirs = 2 };
        DiagList diag = { 0 };
        _cleanup_(ruleset_freep) RuleSet *rs = NULL;
        assert_int_equal(ruleset_load(&src, &rs, &diag), 0);
        assert_int_equal(diag.n, 0);

        ProcessInfo gzip = { .exe = "/usr/bin/gzip", .cmdline = "gzip -9 x", .arg0 = "gzip", .comm = "gzip" };
        ProcessInfo xz = { .exe = "/usr/bin/xz", .cmdline = "xz -9 x", .arg0 = "xz", .comm = "xz" };
        ProcessInfo jackd = { .exe = "/usr/bin/jackd", .cmdline = "jackd -d alsa", .arg0 = "jackd", .comm = "jackd" };
        MatchResult m;
        assert_int_equal(ruleset_match(rs, &gzip, NULL, &m), 1);
        assert_string_equal(m.app, "gzip");
        assert_int_equal(m.class, QCLASS_UTILITY);
        assert_int_equal(ruleset_match(rs, &xz, NULL, &m), 1);
        assert_string_equal(m.app, "compression");
        assert_int_equal(m.class, QCLASS_BACKGROUND);
        assert_int_equal(ruleset_match(rs, &jackd, NULL, &m), 1);
        assert_string_equal(m.app, "jackd");
        assert_int_equal(m.class, QCLASS_USER_INITIATED);
        assert_non_null(strstr(m.origin.path, admin));
        /* Under another name, a name loses to the shipped full path. */
        ProcessInfo xwl = { .exe = "/usr/bin/Xwayland", .cmdline = "Xwayland :1", .arg0 = "Xwayland", .comm = "Xwayland" };
        assert_int_equal(ruleset_match(rs, &xwl, NULL, &m), 1);
        assert_string_equal(m.app, "Xwayland");
        assert_int_equal(m.class, QCLASS_USER_INTERACTIVE);

        diag_list_clear(&diag);
        tree_remove(admin);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_file_loads),
                cmocka_unit_test(test_every_file_says_why_and_leaves_users_the_last_word),
                cmocka_unit_test(test_programs_match_their_files),
                cmocka_unit_test(test_admin_files_override),
        };
        return cmocka_run_group_tests(tests, load_shipped, free_shipped);
}
