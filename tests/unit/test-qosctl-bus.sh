#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosctl's commands that ask qosd, where qosd cannot answer: with no system
# bus, and on a bus where nobody owns qosd's name (a private dbus-daemon
# with the shipped policy). Each says so in one line that names the
# command, and exits 5. No root, no qosd.
set -uo pipefail

: "${QOSCTL:?}" "${QOS_SOURCE_ROOT:?}"
command -v dbus-daemon >/dev/null || { echo "SKIP: no dbus-daemon"; exit 77; }
tmp=$(mktemp -d)
bus_pid=
cleanup() {
        if [ -n "$bus_pid" ]; then
                kill "$bus_pid" 2>/dev/null
                wait "$bus_pid" 2>/dev/null
        fi
        rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# Each command line that needs qosd, and the command its message names.
commands=("status" "ps" "ps -a" "explain 1" "reload" "profile" "profile qos" "foreground" "foreground 1"
          "foreground --clear")

# expect_all WHAT: every command exits 5 with exactly one line on stderr,
# "qosctl COMMAND: WHAT", and nothing on stdout.
expect_all() {
        local what=$1 line rc want
        for line in "${commands[@]}"; do
                rc=0
                # shellcheck disable=SC2086 # the command line is words
                "$QOSCTL" $line >"$tmp/out" 2>"$tmp/err" || rc=$?
                want="qosctl ${line%% *}: $what"
                [ "$rc" = 5 ] || fail "'qosctl $line' exited $rc, not 5: $(cat "$tmp/err")"
                [ "$(cat "$tmp/err")" = "$want" ] || fail "'qosctl $line' said [$(cat "$tmp/err")], not [$want]"
                [ ! -s "$tmp/out" ] || fail "'qosctl $line' printed on stdout: $(cat "$tmp/out")"
        done
}

# No system bus at all.
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus expect_all \
        "qosd is not reachable: there is no system bus (systemctl status dbus qosd)"

# A system bus without qosd on it.
sed -e "s|@SOCKET@|$tmp/socket|" -e "s|@POLICY@|$QOS_SOURCE_ROOT/data/org.qosd.QoS1.conf|" \
        "$QOS_SOURCE_ROOT/tests/data/test-bus.conf.in" >"$tmp/bus.conf"
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile --nosyslog 2>"$tmp/bus.log" &
bus_pid=$!
for ((i = 0; i < 250; i++)); do
        [ -S "$tmp/socket" ] && break
        sleep 0.02
done
[ -S "$tmp/socket" ] || { echo "FAIL: dbus-daemon did not start" >&2; exit 1; }
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/socket expect_all "qosd is not running (systemctl status qosd)"

if ((failures)); then
        echo "$failures check(s) failed" >&2
        exit 1
fi
echo "ok: without qosd every command says so in one line and exits 5"
