#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [Match] AppId= against the real daemon: a program that no Executable=
# rule names gets its rule's class when it runs in a unit named after an
# app ID, as Flatpak (app-flatpak-ID-N.scope) and GNOME
# (app-gnome-ID-N.scope) name them, in a cgroup v2 hierarchy of its own
# (this machine's processes are not in units); and when it runs in a
# Flatpak-like sandbox whose /.flatpak-info names the app, unprivileged
# bwrap on a root of its own. qosctl explain and ps show the app ID. A program
# in a unit of another app ID keeps the default.
source "$(dirname "$0")/lib.sh"
require_root
command -v bwrap >/dev/null || fail "bwrap is missing (scripts/install-deps.sh --group test installs bubblewrap)"
qosd_root_init
user=qos-t-appid
make_user "$user"
APP=$(test_program qos-appid-prog)
printf '[Match]\nAppId=org.example.QosApp\n\n[Process]\nClass=background\n' >"$QOSD_ROOT/etc/qos/apps.d/qosapp.conf"
printf '[Match]\nAppId=org.example.Glob*\n\n[Process]\nClass=user-initiated\n' >"$QOSD_ROOT/etc/qos/apps.d/glob.conf"
BG=$(class_view background)
UIN=$(class_view user-initiated)
UT=$(class_view utility)
chmod -R a+rX "$QOSD_BIN"

# The machine's cgroup v2 hierarchy (there is one), mounted in the test's
# directory, with units as a user manager lays them out below a slice of
# the test's own (where systemd runs the machine, user.slice is its);
# removed at the end, once the killed programs in them are gone.
cg=$TEST_TMP/cg2
mkdir -p "$cg"
mount -t cgroup2 none "$cg" 2>/dev/null || { echo "SKIP: cannot mount a cgroup v2 hierarchy here"; exit 77; }
on_exit "umount -l '$cg'"
top=$cg/qos-test-appid-$$.slice
apps=$top/user-1000.slice/user@1000.service/app.slice
mkdir -p "$apps"
on_exit "for _ in \$(seq 100); do find '$top' -depth -type d -exec rmdir {} + 2>/dev/null; [ -d '$top' ] || break; sleep 0.05; done"

start_dbus
start_qosd

# Start the program in the unit: the shell moves itself, then execs.
PIDS=()
start_in() { # unit
        mkdir -p "$apps/$1"
        sh -c "echo \$\$ >'$apps/$1/cgroup.procs' && exec '$APP' t1" >/dev/null 2>&1 &
        PIDS+=($!)
        on_exit "kill $! 2>/dev/null"
        wait_for grep -q "$APP" "/proc/$!/cmdline" || fail "the program did not start in $1"
        PID=$!
}

for unit in app-flatpak-org.example.QosApp-42.scope app-gnome-org.example.QosApp-43.scope; do
        start_in "$unit"
        wait_view "$PID" "$BG" "$unit: AppId=org.example.QosApp gives background"
        out=$("$QOSCTL" explain "$PID")
        assert_contains "$out" "app id              org.example.QosApp" "explain: the app ID"
        assert_contains "$out" "qosapp.conf" "explain: the rule"
        assert_eq "$("$QOSCTL" ps -p "$PID" | awk 'NR == 1 { a = index($0, " APP ") + 1; next } { split(substr($0, a), f, " "); print f[1]; exit }')" \
                org.example.QosApp "ps: the APP column"
        ok "$unit: the AppId= rule applies; explain and ps show the ID"
done
start_in "app-gnome-org.example.GlobApp-44.scope"
wait_view "$PID" "$UIN" "AppId=org.example.Glob* gives user-initiated"
start_in "app-gnome-org.example.Other-45.scope"
sleep 0.5
assert_eq "$(kernel_view "$PID")" "$UT" "another app ID keeps the default"
ok "a glob matches its IDs; another app ID keeps the default"

# A Flatpak-like sandbox: its own root with /usr and the program, and a
# /.flatpak-info that names the app; the process is in no app's unit.
printf '[Application]\nname=org.example.QosApp\nruntime=runtime/org.example.Platform/x86_64/1\n' >"$TEST_TMP/flatpak-info"
chmod 644 "$TEST_TMP/flatpak-info"
runuser -u "$user" -- bwrap --unshare-user --unshare-pid --die-with-parent --tmpfs / --ro-bind /usr /usr \
        --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --proc /proc --dev /dev \
        --ro-bind "$QOSD_BIN" /app/bin --ro-bind "$TEST_TMP/flatpak-info" /.flatpak-info \
        /app/bin/qos-appid-prog t1 >/dev/null 2>&1 &
on_exit "pkill -KILL -u '$user' 2>/dev/null"
wait_for pgrep -u "$user" -x qos-appid-prog >/dev/null || fail "the sandboxed program did not start"
PID=$(pgrep -u "$user" -x qos-appid-prog)
wait_view "$PID" "$BG" "a Flatpak instance of org.example.QosApp gets background"
assert_contains "$("$QOSCTL" explain "$PID")" "app id              org.example.QosApp" "explain: the ID from .flatpak-info"
ok "a Flatpak-like sandbox: the ID from its /.flatpak-info, the rule applies"

# A sandbox's user chooses what its /.flatpak-info is: a FIFO must not
# make qosd wait, a link is not followed; neither gives an app ID.
mkfifo "$TEST_TMP/fifo-info"
chmod 666 "$TEST_TMP/fifo-info"
cp "$TEST_TMP/flatpak-info" "$QOSD_BIN/info"
chmod -R a+rX "$QOSD_BIN"
sandbox() { # extra bwrap arguments...
        runuser -u "$user" -- bwrap --unshare-user --unshare-pid --die-with-parent --tmpfs / --ro-bind /usr /usr \
                --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --proc /proc --dev /dev \
                --ro-bind "$QOSD_BIN" /app/bin "$@" /app/bin/qos-appid-prog t1 >/dev/null 2>&1 &
}
for kind in fifo link; do
        pkill -KILL -u "$user" 2>/dev/null || true
        wait_for sh -c "! pgrep -u '$user' >/dev/null" || fail "the previous sandbox did not end"
        if [ "$kind" = fifo ]; then
                sandbox --bind "$TEST_TMP/fifo-info" /.flatpak-info
        else
                sandbox --symlink /app/bin/info /.flatpak-info
        fi
        wait_for pgrep -u "$user" -x qos-appid-prog >/dev/null || fail "$kind: the sandboxed program did not start"
        PID=$(pgrep -u "$user" -x qos-appid-prog)
        timeout 10 "$QOSCTL" status >/dev/null || fail "$kind: qosd does not answer"
        out=$(timeout 10 "$QOSCTL" explain "$PID") || fail "$kind: explain failed"
        case $out in *"app id"*) fail "$kind: an app ID from a $kind: $out" ;; esac
        assert_eq "$(kernel_view "$PID")" "$UT" "$kind: the program keeps the default"
done
ok "a FIFO or a link as /.flatpak-info: qosd neither waits nor follows, and no rule applies"
