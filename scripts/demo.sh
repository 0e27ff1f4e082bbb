#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job (make demo): qosd from the build tree in the foreground on
# the shipped rules (conf/apps.d) in a temporary root, a private system bus,
# a demo application with named threads (ui, worker, indexer) and two
# background hogs; `qosctl ps` and `qosctl explain` for them; then a clean
# stop that restores everything. Needs root (the proc connector). Like the
# installed daemon it acts on every process the shipped rules match (make,
# compilers, ...), and puts them back when it stops.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
qosd=$B/src/daemon/qosd qosctl=$B/src/cli/qosctl demo=$B/demo/qos-demo
[ "$(id -u)" = 0 ] || { echo "demo: qosd needs root (the proc connector)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/qos-demo.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
        local p
        for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
        for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
        rm -rf "$tmp"
}
trap cleanup EXIT

# The root: shipped vendor rules where this build's qosd looks for them,
# plus the demo's own rule file (as an admin would add one).
vendor=$(sed -n 's/^#define QOS_VENDOR_DIR "\(.*\)"$/\1/p' "$B/qos-config.h")
root=$tmp/root
mkdir -p "$root$vendor" "$root/etc/qos/apps.d" "$tmp/bin"
cp -r conf/apps.d "$root$vendor/"
cp "$demo" "$tmp/bin/qos-demo"
cp "$demo" "$tmp/bin/qos-demo-hog"
cat >"$root/etc/qos/apps.d/qos-demo.conf" <<EOF
[Match]
Executable=$tmp/bin/qos-demo

[Thread:ui]
Class=user-interactive

[Thread:worker]
Class=user-initiated

[Thread:indexer]
Class=background
EOF
cat >"$root/etc/qos/apps.d/qos-demo-hog.conf" <<EOF
[Match]
Executable=$tmp/bin/qos-demo-hog

[Process]
Class=background
EOF

# A private bus with qosd's shipped policy (no system bus needed).
sed -e "s|@SOCKET@|$tmp/bus|" -e "s|@POLICY@|$PWD/data/org.qosd.QoS1.conf|" \
        tests/data/test-bus.conf.in >"$tmp/bus.conf"
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile --nosyslog 2>/dev/null &
pids+=($!)
for _ in $(seq 100); do [ -S "$tmp/bus" ] && break; sleep 0.05; done
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/bus

echo "== qosd --root $root --sys-root / (foreground; its log is prefixed 'qosd:')"
"$qosd" --root "$root" --sys-root / 2> >(sed 's/^/   qosd: /' >&2) &
qosd_pid=$!
pids+=("$qosd_pid")
for _ in $(seq 100); do "$qosctl" status >/dev/null 2>&1 && break; sleep 0.05; done

"$tmp/bin/qos-demo" >"$tmp/demo.out" &
app=$!
pids+=("$app")
"$tmp/bin/qos-demo-hog" --hog &
pids+=($!)
"$tmp/bin/qos-demo-hog" --hog &
pids+=($!)
for _ in $(seq 100); do grep -q ready "$tmp/demo.out" && break; sleep 0.05; done
sleep 1

echo
echo "== qosctl ps (the threads qosd manages)"
"$qosctl" ps | sed "s|$root||"
echo
ui=$(awk '$3 == "ui" { print $2 }' < <("$qosctl" ps))
echo "== qosctl explain $ui (the ui thread)"
"$qosctl" explain "$ui" | sed "s|$root||"
echo
echo "== qosctl status"
"$qosctl" status | grep -E "^(RulesLoaded|TasksManaged|EventsSeen|EventsLost|Rescans|Applied|ForeignChanges|LastReload)"
echo
echo "== qosctl profile (system-wide knobs on this machine)"
"$qosctl" profile | sed "s|$root||"

echo
echo "== stopping qosd (SIGTERM): every thread goes back"
kill -TERM "$qosd_pid"
while kill -0 "$qosd_pid" 2>/dev/null; do sleep 0.05; done
"$qosctl" get -p "$app" -a
