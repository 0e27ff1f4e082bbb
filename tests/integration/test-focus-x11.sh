#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The foreground from a real X session: Xvfb, openbox (an EWMH window
# manager), real X clients that ask qosd for user-interactive through
# libqos, xdotool moving the focus, and qos-focus, the session helper, all
# as a test user. The focused app gets user-interactive, the others are
# held at utility; the claim dies with qos-focus; a restarted qosd is told
# the focus again. This machine has no seats, so the user is made the
# ForegroundUser= here; the seat rules are tested in the systemd VM.
. "$(dirname "$0")/lib.sh"
require_root
: "${QOS_FOCUS:?QOS_FOCUS must point at qos-focus}"
: "${QOS_X11_APP:?QOS_X11_APP must point at qos-x11-app}"
: "${QOS_LIB:?}"
for tool in Xvfb openbox xdotool xprop; do
        if ! command -v "$tool" >/dev/null; then
                echo "SKIP: $TEST_NAME needs $tool (scripts/install-deps.sh installs it)"
                exit 77
        fi
done

alice=qos-t-fxalice
make_user "$alice"
copy_for_user "$QOS_LIB" "$QOS_FOCUS" "$QOS_X11_APP"
UI=$(class_view user-interactive)
UT=$(class_view utility)

start_dbus
qosd_root_init
printf '[Daemon]\nUserRules=no\nForegroundUser=%s\n' "$alice" >"$QOSD_ROOT/etc/qos/qosd.conf"
start_qosd --log-level debug

# A display nobody uses, chosen by Xvfb, which names it (-displayfd) only
# once it accepts connections: its socket appears earlier, at bind().
runuser -u "$alice" -- Xvfb -displayfd 3 -nolisten tcp -ac -screen 0 800x600x24 \
        3>"$TEST_TMP/display" >"$TEST_TMP/xvfb.log" 2>&1 &
xvfb=$!
on_exit "kill $xvfb"
wait_for grep -q . "$TEST_TMP/display" || fail "Xvfb did not start: $(cat "$TEST_TMP/xvfb.log")"
d=$(cat "$TEST_TMP/display")
on_exit "rm -f /tmp/.X11-unix/X$d /tmp/.X$d-lock"
export DISPLAY=:$d
mkdir -p "$TEST_TMP/home"
chown "$alice" "$TEST_TMP/home"
chmod 711 "$TEST_TMP"
as_alice() {
        runuser -u "$alice" -- env DISPLAY="$DISPLAY" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
                HOME="$TEST_TMP/home" XDG_CACHE_HOME="$TEST_TMP/home/.cache" \
                LD_LIBRARY_PATH="$TEST_TMP/lib" "$@"
}
x_answers() { as_alice xprop -root _NET_SUPPORTING_WM_CHECK; }
wait_for x_answers || fail "Xvfb named display :$d but does not answer there: $(cat "$TEST_TMP/xvfb.log")"
# openbox connects once and gives up; a busy machine has been seen to
# refuse that one connection, so a window manager that ended is started
# again (three times at most).
wm_running() { x_answers 2>/dev/null | grep 'window id' >/dev/null; }
for attempt in 1 2 3; do
        as_alice openbox >>"$TEST_TMP/openbox.log" 2>&1 &
        wm=$!
        on_exit "kill $wm"
        deadline=$((SECONDS + 30))
        while kill -0 "$wm" 2>/dev/null && ! wm_running && ((SECONDS < deadline)); do sleep 0.05; done
        wm_running && break
done
wm_running || fail "openbox did not start: $(cat "$TEST_TMP/openbox.log"); Xvfb: $(cat "$TEST_TMP/xvfb.log")"

app_start() { # name [--no-wm-pid]: APP_PID (the app's, not runuser's), APP_WIN
        local out="$TEST_TMP/app-$1.out"
        as_alice "$TEST_TMP/bin/qos-x11-app" --ask "$@" >"$out" 2>&1 &
        on_exit "kill $!"
        wait_for grep -q '^ready' "$out" || fail "qos-x11-app $1 did not start: $(cat "$out")"
        APP_WIN=$(awk '$1 == "ready" { print $2 }' "$out")
        APP_PID=$(awk '$1 == "ready" { print $3 }' "$out")
        on_exit "kill $APP_PID"
}
focus() { # window
        xdotool windowactivate --sync "$1" 2>/dev/null || xdotool windowactivate "$1"
}

app_start first
a_pid=$APP_PID a_win=$APP_WIN
app_start second --no-wm-pid
b_pid=$APP_PID b_win=$APP_WIN
assert_eq "$(kernel_view "$a_pid")" "$UT" "no source yet, and alice sits at no seat: held"
assert_eq "$(kernel_view "$b_pid")" "$UT" "the second app is held too"

focus_start() {
        as_alice "$TEST_TMP/bin/qos-focus" --no-relay --log-level debug >>"$TEST_TMP/focus.log" 2>&1 &
        on_exit "kill $!"
        # qos-focus itself, not runuser: the test awaits its end.
        wait_for pgrep -u "$alice" -x qos-focus || fail "qos-focus did not start"
        FOCUS_PID=$(pgrep -u "$alice" -x qos-focus)
        on_exit "kill $FOCUS_PID"
}
focus_start
focus "$a_win"
wait_view "$a_pid" "$UI" "the focused app's held request is raised"
assert_eq "$(kernel_view "$b_pid")" "$UT" "the other app stays at utility"
assert_contains "$("$QOSCTL" status)" "x11 for a trusted caller, 1 process(es)" "status names the source"
assert_eq "$("$QOSCTL" foreground | awk '{print $1}')" "$a_pid" "qosctl foreground lists the focused app"
ok "the foreground follows the X11 focus (_NET_WM_PID)"

focus "$b_win"
wait_view "$b_pid" "$UI" "the app without _NET_WM_PID, named by the X server"
wait_view "$a_pid" "$UT" "the app that lost the focus is held again"
ok "a window without _NET_WM_PID: its process from X-Resource"

app_start third
c_pid=$APP_PID c_win=$APP_WIN
assert_contains "$(cat "$TEST_TMP/app-third.out")" "asked 1 utility" "a request from an unfocused app is held (1: held, libqos says)"
# openbox focuses a new window: give the focus back to the first app.
focus "$a_win"
wait_view "$a_pid" "$UI" "the first app has the focus again"
wait_view "$c_pid" "$UT" "the unfocused app's request is held at utility"
assert_contains "$("$QOSCTL" explain "$c_pid")" "held at utility: not in the foreground (source: x11)" \
        "explain says why"
focus "$c_win"
wait_view "$c_pid" "$UI" "raised when the app is focused"
for ((i = 0; i < 10; i++)); do
        focus "$a_win"
        focus "$c_win"
done
wait_view "$c_pid" "$UI" "after ten round trips, the focused app is user-interactive"
assert_eq "$(kernel_view "$a_pid")" "$UT" "and the other is held"
ok "a request from an unfocused app is held at utility and raised on focus"

kill "$FOCUS_PID"
wait_for sh -c "! kill -0 $FOCUS_PID" || fail "qos-focus did not exit on SIGTERM"
wait_view "$c_pid" "$UT" "qos-focus gone: its claim goes, alice (at no seat) is held"
assert_contains "$("$QOSCTL" status)" "no source: user-interactive for root and active seat users" \
        "status: back to the policy without a source"
ok "the claim dies with the source's connection"

focus_start
wait_view "$c_pid" "$UI" "a new qos-focus tells qosd the focus at once"
stop_qosd
start_qosd --log-level debug
# The new qosd knows no requests (they are the old one's), but it is told
# the focus, so requests from now on are judged by it.
wait_for sh -c "'$QOSCTL' foreground | grep '^$c_pid ' >/dev/null" || fail "a restarted qosd was not told the focus"
assert_contains "$("$QOSCTL" status)" "x11 for a trusted caller, 1 process(es)" "status after the restart"
wait_for grep -q "qosd appeared on the bus" "$TEST_TMP/focus.log" || fail "qos-focus did not notice qosd"
ok "qos-focus follows qosd across restarts"
