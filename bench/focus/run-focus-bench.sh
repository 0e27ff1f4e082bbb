#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The foreground figure: how fast a focus switch gives the newly focused
# app user-interactive, per source (X11 through qos-focus, SetFocus on the
# system bus, the session-bus relay that the KWin script uses), and what a
# user sees: two windows whose UI threads draw a 60 Hz frame loop (3 ms of
# work) beside 4 background hogs while the focus moves back and forth 100
# times. Everything as an unprivileged user in a real X session (Xvfb,
# openbox), qosd from the build on a private bus. Each condition quiet and
# under load (2 more CPU hogs at utility); ROUNDS rounds, medians.
#
# Usage (root): bench/focus/run-focus-bench.sh [BUILD] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
rounds=${2:-3}
user=qos-bench-focus
tmp=$(mktemp -d /tmp/qos-focus-bench.XXXXXX)
pids=()
cleanup() {
        local p
        for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
        pkill -u "$user" 2>/dev/null || true
        sleep 0.3
        userdel "$user" 2>/dev/null || true
        rm -rf "$tmp" "/tmp/.X11-unix/X$disp" "/tmp/.X$disp-lock"
}
trap cleanup EXIT
trap "exit 130" INT TERM
userdel "$user" 2>/dev/null || true
useradd --no-create-home --shell /bin/sh "$user"
chmod 711 "$tmp"
mkdir -p "$tmp/bin" "$tmp/lib" "$tmp/home" "$tmp/root/etc/qos/apps.d" "$tmp/out"
cp "$build/bench/focus/qos-bench-focus" "$build/src/qos-focus/qos-focus" "$tmp/bin/"
cp -L "$build/src/lib/libqos.so.0" "$tmp/lib/"
chmod -R a+rX "$tmp/bin" "$tmp/lib"
chown "$user" "$tmp/home" "$tmp/out"

# The system bus (qosd's policy), a session bus, qosd.
sed -e "s|@SOCKET@|$tmp/system|" -e "s|@POLICY@|$src/data/org.qosd.QoS1.conf|" \
        "$src/tests/data/test-bus.conf.in" >"$tmp/bus.conf"
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile --nosyslog & pids+=($!)
runuser -u "$user" -- dbus-daemon --session --address="unix:path=$tmp/home/bus" --nofork --nopidfile & pids+=($!)
for ((i = 0; i < 250; i++)); do [ -S "$tmp/system" ] && [ -S "$tmp/home/bus" ] && break; sleep 0.02; done
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/system
printf '[Daemon]\nUserRules=no\nForegroundUser=%s\n' "$user" >"$tmp/root/etc/qos/qosd.conf"
"$build/src/daemon/qosd" --root "$tmp/root" >"$tmp/qosd.log" 2>&1 & pids+=($!)
for ((i = 0; i < 500; i++)); do grep -q '^ready:' "$tmp/qosd.log" && break; sleep 0.02; done

for ((disp = 90; disp < 200; disp++)); do
        [ -e "/tmp/.X11-unix/X$disp" ] || [ -e "/tmp/.X$disp-lock" ] || break
done
export DISPLAY=:$disp
as_user() {
        runuser -u "$user" -- env DISPLAY="$DISPLAY" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
                DBUS_SESSION_BUS_ADDRESS="unix:path=$tmp/home/bus" HOME="$tmp/home" \
                XDG_CACHE_HOME="$tmp/home/.cache" LD_LIBRARY_PATH="$tmp/lib" "$@"
}
as_user Xvfb "$DISPLAY" -nolisten tcp -ac -screen 0 800x600x24 >/dev/null 2>&1 & pids+=($!)
for ((i = 0; i < 250; i++)); do [ -S "/tmp/.X11-unix/X$disp" ] && break; sleep 0.02; done
as_user openbox >/dev/null 2>&1 & pids+=($!)
for ((i = 0; i < 500; i++)); do xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id' && break; sleep 0.02; done
as_user "$tmp/bin/qos-focus" >"$tmp/focus.log" 2>&1 & pids+=($!)
for ((i = 0; i < 250; i++)); do as_user busctl --user status org.qosd.Focus1 >/dev/null 2>&1 && break; sleep 0.02; done

hogs=()
hogs_start() { # count class
        local k
        for ((k = 0; k < $1; k++)); do
                "$build/src/cli/qosctl" run -c "$2" sh -c 'while :; do :; done' & hogs+=($!)
        done
}
hogs_stop() {
        local h
        for h in "${hogs[@]}"; do kill "$h" 2>/dev/null || true; done
        for h in "${hogs[@]}"; do wait "$h" 2>/dev/null || true; done
        hogs=()
}
# app NAME SECONDS: WIN and PID of the app, its frames in $tmp/out/NAME
app() {
        rm -f "$tmp/$1.ready" # not the last run's: the redirection below happens in the child
        as_user "$tmp/bin/qos-bench-focus" app "$1" "$2" "$tmp/out/$1" >"$tmp/$1.ready" & pids+=($!)
        for ((i = 0; i < 500; i++)); do grep -q '^ready' "$tmp/$1.ready" && break; sleep 0.02; done
        read -r _ WIN PID _ <"$tmp/$1.ready"
}
app_stop() { # pid
        kill "$1" 2>/dev/null || true
        while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
}
stats() { python3 "$here/focus-stats.py" "$@"; }

results=$tmp/results.txt
: >"$results"
for ((round = 1; round <= rounds; round++)); do
        # The floor: one focused app, nothing else running.
        app floor 10; pf=$PID
        sleep 10.5
        app_stop "$pf"
        for load in quiet loaded; do
                [ "$load" = loaded ] && hogs_start 2 utility
                # Latency per source: 200 switches between two apps.
                app lat-a 600; wa=$WIN pa=$PID
                app lat-b 600; wb=$WIN pb=$PID
                echo "$load x11 $(as_user "$tmp/bin/qos-bench-focus" switch-x11 200 "$wa" "$pa" "$wb" "$pb")" >>"$results"
                echo "$load bus $(as_user "$tmp/bin/qos-bench-focus" switch-bus 200 "$pa" "$pb")" >>"$results"
                echo "$load relay $(as_user "$tmp/bin/qos-bench-focus" switch-relay 200 "$pa" "$pb")" >>"$results"
                app_stop "$pa"
                app_stop "$pb"
                # Two apps, 4 background hogs, the focus moved 100 times
                # (the last move focuses "two"), then 10 s of frames.
                hogs_start 4 background
                app one 40; w1=$WIN p1=$PID
                app two 40; w2=$WIN p2=$PID
                sleep 1
                as_user "$tmp/bin/qos-bench-focus" switch-x11 100 "$w1" "$p1" "$w2" "$p2" >/dev/null
                sleep 10.5
                app_stop "$p1"
                app_stop "$p2"
                echo "$load frames $(stats tail "$tmp/out/floor" "$tmp/out/two" "$tmp/out/one" 600)" >>"$results"
                hogs_stop
        done
done
cp "$results" "$src/build/focus-bench-results.txt" 2>/dev/null || true
stats table "$results"
