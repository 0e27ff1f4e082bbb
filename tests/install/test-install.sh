#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One layout under any prefix. A tree configured with --prefix=/opt/qostest
# is installed into a staging directory (meson install --destdir) and the
# installed programs are asked where their files are: every path is below
# the prefix, qosctl finds its private preload library and --root still
# prefixes the directories; a program builds against the staged libqos
# with its pkg-config file. The default prefix /usr gives /etc/qos,
# /run/qos and /usr/share/qos. No root needed.
. "$(dirname "$0")/lib.sh"

# setup DIR MESON-OPTIONS...: a plain tree of our own (no sanitizer, no tests).
setup() {
        local dir=$1
        shift
        meson setup "$dir" "$QOS_SOURCE_ROOT" -Dtests=disabled -Db_sanitize=none "$@" >"$tmp/log" 2>&1 ||
                { cat "$tmp/log" >&2; fail "meson setup $*"; }
}

setup "$tmp/opt" --prefix=/opt/qostest
meson install -C "$tmp/opt" --destdir "$tmp/dest" >"$tmp/log" 2>&1 || { tail -40 "$tmp/log" >&2; fail "meson install"; }
P=$(realpath "$tmp/dest")/opt/qostest
pc=$(find "$P" -name libqos.pc)
[ -n "$pc" ] || fail "no libqos.pc installed below $P"
libdir=$(dirname "$(dirname "$pc")")
case $libdir in "$P"/lib*) ;; *) fail "libdir $libdir is not below the prefix" ;; esac

# The files: the preload library in the private directory only, the
# settings below the prefix's sysconfdir, the unit pointing at the prefix.
[ -f "$libdir/qos/libqos-preload.so" ] || fail "no $libdir/qos/libqos-preload.so"
! compgen -G "$libdir/libqos-preload.so*" >/dev/null || fail "libqos-preload.so is in the public libdir $libdir"
[ -f "$P/etc/qos/qosd.conf" ] || fail "qosd.conf not in $P/etc/qos"
[ -d "$P/var/run/qos" ] || fail "no runtime directory $P/var/run/qos for the unit's ReadWritePaths="
[ -f "$P/include/qos/qos.h" ] && [ -f "$P/include/qos/darwin.h" ] || fail "headers not in $P/include/qos"
unit=$(find "$tmp/dest" -name qosd.service)
[ -n "$unit" ] || fail "qosd.service not installed"
grep -qx 'ExecStart=/opt/qostest/sbin/qosd' "$unit" || fail "$unit: ExecStart is not the installed qosd"
grep -q '^ReadWritePaths=/opt/qostest/var/run/qos ' "$unit" || fail "$unit: the runtime directory is not writable"
! grep -q '^RuntimeDirectory=' "$unit" || fail "$unit: RuntimeDirectory= would make /run/qos, not the prefix's"
ok "installed below $P: private preload library, settings, headers, unit"

# The shipped rules: every file of conf/apps.d in the prefix's datadir, and
# the installed qosctl loads them without a message.
diff <(cd "$QOS_SOURCE_ROOT/conf/apps.d" && ls) <(cd "$P/share/qos/apps.d" && ls) >"$tmp/log" ||
        { cat "$tmp/log" >&2; fail "the installed $P/share/qos/apps.d differs from conf/apps.d"; }
n=$(find "$QOS_SOURCE_ROOT/conf/apps.d" -name '*.conf' | wc -l)
LD_LIBRARY_PATH=$libdir "$P/bin/qosctl" check "$P/share/qos/apps.d" >"$tmp/log" 2>&1 ||
        { cat "$tmp/log" >&2; fail "qosctl check of the installed rules"; }
grep -Eqx "$n files, [0-9]+ rules: 0 errors, 0 warnings" "$tmp/log" ||
        { cat "$tmp/log" >&2; fail "the installed rules do not load clean"; }
ok "the $n shipped rule files installed in $P/share/qos/apps.d, and they load clean"

# What the installed programs say. Nothing may point outside the prefix.
help=$(LD_LIBRARY_PATH=$libdir "$P/bin/qosctl" --help)
for want in "/opt/qostest/share/qos/apps.d" "/opt/qostest/etc/qos/apps.d" "/opt/qostest/var/run/qos/apps.d" \
        "/opt/qostest/etc/qos/qosd.conf" "preload library     $libdir/qos/libqos-preload.so"; do
        assert_contains "$help" "$want" "installed qosctl --help"
done
! grep -Eq '(^| )/(etc|run|usr)/' <<<"$help" || fail "installed qosctl --help names a path outside the prefix: $help"
daemon_help=$("$P/sbin/qosd" --help)
assert_contains "$daemon_help" "/opt/qostest/etc/qos, /opt/qostest/share/qos" "installed qosd --help"
assert_contains "$daemon_help" "/opt/qostest/var/run/qos (also" "installed qosd --help"
assert_contains "$daemon_help" "(default ROOT/opt/qostest/etc/qos/qosd.conf)" "installed qosd --help"
ok "installed qosctl and qosd name only paths below /opt/qostest"

# qosctl run --preload loads the staged library into the command.
out=$(LD_LIBRARY_PATH=$libdir "$P/bin/qosctl" run -P -v sh -c 'cat /proc/$$/maps' 2>"$tmp/err") ||
        { cat "$tmp/err" >&2; fail "installed qosctl run -P failed"; }
assert_contains "$out" "LD_PRELOAD=$libdir/qos/libqos-preload.so" "qosctl run -P -v"
grep " $libdir/qos/libqos-preload.so$" <<<"$out" >/dev/null || fail "the preload library is not mapped in the command: $out"
[ ! -s "$tmp/err" ] || { cat "$tmp/err" >&2; fail "qosctl run -P wrote to stderr"; }
ok "installed qosctl run -P loads $libdir/qos/libqos-preload.so"

# --root and $QOS_ROOT prefix the configured directories.
root=$tmp/root
mkdir -p "$root/opt/qostest/etc/qos/apps.d"
printf '[Match]\nExecutable=/usr/bin/editor\n[Process]\nClass=utility\n' >"$root/opt/qostest/etc/qos/apps.d/editor.conf"
out=$("$P/bin/qosctl" --root "$root" check --effective)
assert_contains "$out" "### system rules from $root/opt/qostest/share/qos/apps.d < $root/opt/qostest/etc/qos/apps.d < $root/opt/qostest/var/run/qos/apps.d" "qosctl --root check --effective"
assert_contains "$out" "$root/opt/qostest/etc/qos/apps.d/editor.conf" "qosctl --root check --effective"
out=$(QOS_ROOT=$root "$P/bin/qosctl" check --effective)
assert_contains "$out" "$root/opt/qostest/etc/qos/apps.d/editor.conf" "QOS_ROOT= qosctl check --effective"
ok "--root and \$QOS_ROOT prefix the installed directories"

# A program builds against the staged tree with its libqos.pc, the prefix
# moved to where the tree is.
PKG_CONFIG_PATH=$libdir/pkgconfig build_client "$P/include" "$libdir" --define-variable=prefix="$P"
ok "pkg-config libqos from the staged $libdir/pkgconfig: compiled, linked, ran"

# The default prefix, /usr: the system's directories. Only qosctl is built;
# meson's install plan says where the rest would go.
setup "$tmp/usr"
meson compile -C "$tmp/usr" qosctl >"$tmp/log" 2>&1 || { tail -40 "$tmp/log" >&2; fail "meson compile qosctl"; }
help=$("$tmp/usr/src/cli/qosctl" --help)
for want in " /usr/share/qos/apps.d" " /etc/qos/apps.d" " /run/qos/apps.d" " /etc/qos/qosd.conf"; do
        assert_contains "$help" "$want" "qosctl --help with prefix /usr"
done
plan=$(meson introspect "$tmp/usr" --installed)
for want in "/qos/libqos-preload.so" "/etc/qos/qosd.conf"; do
        assert_contains "$plan" "$want\"" "the install plan with prefix /usr"
done
grep -Eq '"/usr/lib/[^"]*/qos/libqos-preload.so"' <<<"$plan" || fail "the preload library is not planned for /usr/lib/ARCH/qos: $plan"
unit=$tmp/usr/data/qosd.service
grep -qx 'ExecStart=/usr/sbin/qosd' "$unit" && grep -qx 'RuntimeDirectory=qos' "$unit" &&
        grep -q '^ReadWritePaths=/run/qos ' "$unit" || fail "$unit is not the /usr one: $(cat "$unit")"
ok "prefix /usr: /usr/share/qos, /etc/qos, /run/qos, /usr/lib/ARCH/qos/libqos-preload.so"
