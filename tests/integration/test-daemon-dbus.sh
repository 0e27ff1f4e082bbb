#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The D-Bus interface on a real dbus-daemon with the shipped policy: what
# qosd exports is what data/org.qosd.QoS1.xml documents; anyone may list,
# explain and read the status; only root may reload, switch profiles and
# set the foreground, and qosctl says so; errors map to exit codes; qosctl
# says when qosd is not running.
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init
make_user qostestdbus

expect_exit 5 "$QOSCTL" status
assert_eq "$OUT" "qosctl status: qosd is not running (systemctl status qosd)" "status without a daemon"
ok "no daemon: exit 5 and a clear message"

BG=$(test_program qos-app-bg)
write_rule app-bg "$BG" background
start_qosd

# The exported interface equals the shipped introspection file.
busctl --system introspect --xml-interface org.qosd.QoS1 /org/qosd/QoS1 >"$TEST_TMP/live.xml"
members() { # file
        python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
for i in root.iter("interface"):
    if i.get("name") != "org.qosd.QoS1.Manager":
        continue
    for m in i:
        if m.tag == "method":
            args = ",".join(a.get("direction") + ":" + a.get("type") for a in m.iter("arg"))
            print("method", m.get("name"), args)
        elif m.tag == "property":
            print("property", m.get("name"), m.get("type"), m.get("access"))
PY
}
# In any order: the vtable groups them by feature, the file by topic.
live=$(members "$TEST_TMP/live.xml" | sort)
shipped=$(members "$QOS_SOURCE_ROOT/data/org.qosd.QoS1.xml" | sort)
[ -n "$live" ] || fail "no org.qosd.QoS1.Manager interface exported"
assert_eq "$live" "$shipped" "exported interface vs data/org.qosd.QoS1.xml"
ok "the exported interface is the documented one"

THREADS_BIN=$BG start_threads ui worker
p=$THREADS_PID
wait_view "$p" "$(class_view background)" "matched program"
line=$("$QOSCTL" ps | awk -v t="$(tid_of worker)" '$2 == t')
assert_contains "$line" "background" "ps: class"
assert_contains "$line" "applied" "ps: state"
assert_contains "$line" "app-bg.conf:5" "ps: rule file:line"
assert_contains "$line" "policy=idle" "ps: knobs"
[ "$("$QOSCTL" ps | grep -c " $p ")" -ge 1 ] || fail "ps lacks the process"
"$QOSCTL" ps | grep " 1 .* unmanaged" >/dev/null && fail "ps without -a lists unmanaged threads"
"$QOSCTL" ps -a | awk '$1 == 1' | grep unmanaged >/dev/null || fail "ps -a lacks PID 1"
ok "qosctl ps and ps -a"

out=$(runuser -u qostestdbus -- "$(user_runnable "$QOSCTL")" explain "$(tid_of worker)")
assert_contains "$out" "thread verdict      background from $QOSD_ROOT/etc/qos/apps.d/app-bg.conf:5" "explain verdict"
assert_contains "$out" "kernel accepted" "explain lists accepted knobs"
assert_contains "$out" "not in this kernel  uclamp" "explain lists missing knobs"
assert_contains "$out" "original" "explain shows the original"
ok "an unprivileged user may explain"
runuser -u qostestdbus -- "$(user_runnable "$QOSCTL")" status | grep "^TasksManaged *3$" >/dev/null || fail "status as a user"
runuser -u qostestdbus -- "$(user_runnable "$QOSCTL")" ps >/dev/null || fail "ps as a user"
ok "an unprivileged user may read status and ps"

# Refused by the bus policy, and said as who may, in one line.
expect_exit 4 runuser -u qostestdbus -- "$(user_runnable "$QOSCTL")" reload
assert_eq "$OUT" "qosctl reload: needs root (qosd allows reloading the rules to root only)" "reload refused"
expect_exit 4 runuser -u qostestdbus -- "$(user_runnable "$QOSCTL")" profile qos
assert_eq "$OUT" "qosctl profile: needs root (qosd allows switching profiles to root only)" "profile refused"
expect_exit 4 runuser -u qostestdbus -- "$(user_runnable "$QOSCTL")" foreground $$
assert_eq "$OUT" "qosctl foreground: needs root (qosd allows setting the foreground to root and the ForegroundUser=/ForegroundGroup= of qosd.conf only)" \
        "foreground refused"
ok "reload, profile and foreground changes are root's (bus policy), said in one line"

expect_exit 3 "$QOSCTL" explain 999999999
expect_exit 2 "$QOSCTL" explain nope
"$QOSCTL" reload | grep "loaded" >/dev/null || fail "reload as root"
ok "exit codes: 3 no such thread, 2 usage; root may reload"
stop_qosd TERM
