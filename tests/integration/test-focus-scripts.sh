#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The compositor sources: the KWin script and the GNOME Shell extension.
# Both are syntax-checked (node --check), the extension is loaded in gjs
# and its SetFocus sent to qosd on a real bus; the KWin script runs under
# node with a KWin-like host that calls qos-focus's relay on a real session
# bus, which passes the focus on to qosd. As a test user; this machine has
# no seats, so the user is the ForegroundUser=, and another user (at no
# seat, not trusted) is refused.
. "$(dirname "$0")/lib.sh"
require_root
: "${QOS_FOCUS:?QOS_FOCUS must point at qos-focus}"
for tool in node gjs dbus-send; do
        if ! command -v "$tool" >/dev/null; then
                echo "SKIP: $TEST_NAME needs $tool (scripts/install-deps.sh installs it)"
                exit 77
        fi
done
KWIN=$QOS_SOURCE_ROOT/data/focus/kwin/qos-focus/contents/code/main.js
GNOME=$QOS_SOURCE_ROOT/data/focus/gnome-shell/qos-focus@qosd.org

node --check "$KWIN" || fail "the KWin script does not parse"
node --check "$GNOME/extension.js" || fail "the GNOME Shell extension does not parse"
python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' \
        "$QOS_SOURCE_ROOT/data/focus/kwin/qos-focus/metadata.json" "$GNOME/metadata.json" ||
        fail "a metadata.json does not parse"
ok "the KWin script, the extension and their metadata parse"

alice=qos-t-fsalice
bob=qos-t-fsbob
make_user "$alice"
make_user "$bob"
mkdir -p "$TEST_TMP/share"
cp -r "$GNOME" "$KWIN" "$QOS_SOURCE_ROOT/tests/data/kwin-host.js" \
        "$QOS_SOURCE_ROOT/tests/data/gnome-shell-report.js" "$TEST_TMP/share/"
chmod -R a+rX "$TEST_TMP/share"
focus_bin=$(user_runnable "$QOS_FOCUS")
chmod 711 "$TEST_TMP"

start_dbus
qosd_root_init
printf '[Daemon]\nUserRules=no\nForegroundUser=%s\n' "$alice" >"$QOSD_ROOT/etc/qos/qosd.conf"
start_qosd --log-level debug
AS_USER=$alice start_threads app
app=$(awk '/^Tgid:/ { print $2 }' "/proc/$(awk '{ print $1; exit }' "$THREADS_OUT")/status")
AS_USER=$alice start_threads other
other=$(awk '/^Tgid:/ { print $2 }' "/proc/$(awk '{ print $1; exit }' "$THREADS_OUT")/status")

# --- GNOME Shell: the extension's own call, in gjs ------------------------
as() { # user command...
        local user=$1
        shift
        runuser -u "$user" -- env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" HOME=/ "$@"
}
coproc GJS { as "$alice" gjs "$TEST_TMP/share/gnome-shell-report.js" "$TEST_TMP/share/qos-focus@qosd.org" "$app" 30 2>&1; }
on_exit "kill $GJS_PID"
read -r -t 20 line <&"${GJS[0]}" || fail "the extension did not answer"
assert_eq "$line" ok "the extension's SetFocus"
assert_eq "$("$QOSCTL" foreground | awk '{print $1}')" "$app" "qosd took the extension's focus"
assert_contains "$("$QOSCTL" status)" "gnome-shell for a trusted caller" "status names the source"
pkill -u "$alice" -x gjs || fail "gjs is not running"
wait_for sh -c "! '$QOSCTL' status | grep gnome-shell" >/dev/null || fail "the claim outlived the shell's connection"
line=$(as "$bob" gjs "$TEST_TMP/share/gnome-shell-report.js" "$TEST_TMP/share/qos-focus@qosd.org" "$other" 0 2>&1)
assert_contains "$line" "error" "bob, at no seat and not trusted, is refused"
assert_contains "$line" "no active session on a seat" "and told why"
ok "the GNOME Shell extension's SetFocus reaches qosd, and only for who may say it"

# --- KWin: the script under a KWin-like host, through qos-focus's relay ---
start_session_bus "$alice"
session=$SESSION_BUS
as "$alice" DBUS_SESSION_BUS_ADDRESS="$session" "$focus_bin" --no-x11 --log-level debug \
        >"$TEST_TMP/focus.log" 2>&1 &
on_exit "kill $!"
wait_for as "$alice" DBUS_SESSION_BUS_ADDRESS="$session" dbus-send --session --print-reply \
        --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetNameOwner string:org.qosd.Focus1 ||
        fail "qos-focus did not take org.qosd.Focus1: $(cat "$TEST_TMP/focus.log")"

coproc KWINHOST { as "$alice" DBUS_SESSION_BUS_ADDRESS="$session" node "$TEST_TMP/share/kwin-host.js" \
        "$TEST_TMP/share/main.js" 2>&1; }
on_exit "kill $KWINHOST_PID"
read -r -t 20 line <&"${KWINHOST[0]}" || fail "the KWin script did not report the active window"
assert_eq "$line" "called SetFocus kwin 0" "at start, no window is active"
echo "$app" >&"${KWINHOST[1]}"
read -r -t 20 line <&"${KWINHOST[0]}" || fail "the KWin script did not report the activation"
assert_eq "$line" "called SetFocus kwin $app" "the activated window's process"
wait_for sh -c "'$QOSCTL' foreground | grep '^$app ' >/dev/null" || fail "qosd was not told the KWin focus"
assert_contains "$("$QOSCTL" status)" "kwin for a trusted caller, 1 process(es)" "status names the source"
echo "$other" >&"${KWINHOST[1]}"
read -r -t 20 line <&"${KWINHOST[0]}"
wait_for sh -c "'$QOSCTL' foreground | grep '^$other ' >/dev/null" || fail "qosd did not follow the next activation"
ok "the KWin script's activations reach qosd through qos-focus"

# The relay takes the PID as KWin's engines send it, and nothing else.
relay() { # dbus-send arguments
        as "$alice" DBUS_SESSION_BUS_ADDRESS="$session" dbus-send --session --print-reply \
                --dest=org.qosd.Focus1 /org/qosd/Focus1 org.qosd.Focus1.SetFocus "$@" 2>&1
}
for pid in "uint32:$app" "int64:$app" "double:$app"; do
        relay string:kwin "$pid" >/dev/null || fail "the relay refused SetFocus with $pid"
done
wait_for sh -c "'$QOSCTL' foreground | grep '^$app ' >/dev/null" || fail "qosd was not told the relayed focus"
for args in "string:kwin double:1.5" "string:kwin int32:-3" "string:KWin int32:$app" "int32:$app" \
            "string:kwin string:$app" "string:kwin int64:4294967296"; do
        # shellcheck disable=SC2086
        out=$(relay $args) && fail "the relay took SetFocus $args"
        assert_contains "$out" "InvalidArgs" "the relay refuses SetFocus $args"
done
ok "the relay takes every integer type of PID and refuses the rest"
