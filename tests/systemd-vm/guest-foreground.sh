# SPDX-License-Identifier: LGPL-2.1-or-later
# The foreground gate on a systemd machine with logind (sourced by
# guest-tests.sh, qosd running): sessions on virtual terminals of seat0, as
# a display manager makes them, a second user, a user switch with
# `loginctl activate`, mutter's user.xdg.inactive-since marks on app
# scopes, and the KWin path (qos-focus's relay on the user's session bus).

BOB=bob
id "$BOB" >/dev/null 2>&1 || useradd -m -u 1001 -s /bin/bash "$BOB"
cp /bin/sleep /usr/local/bin/qos-ui
rule ui /usr/local/bin/qos-ui user-interactive
nice_of() { awk '{ print $19 }' "/proc/$1/stat"; }
nice_is() { [ "$(nice_of "$1")" = "$2" ]; }   # pid nice: user-interactive is -20, held (utility) 0
refused() { qosctl status | awk '$1 == "ForegroundRefused" { print $2 }'; }
status_has() { qosctl status | grep -- "$1" >/dev/null; }

# A logind session of USER on /dev/ttyN of seat0, as login(1) makes one.
open_session() { # user vt
        systemd-run --quiet --unit="qos-session-$1-$2" -p PAMName=login -p User="$1" -p TTYPath="/dev/tty$2" \
                -p TTYVTDisallocate=no /bin/sleep 3600
        wait_until session_id "$1" "$2" >/dev/null
}
session_id() { # user vt
        local id
        for id in $(loginctl list-sessions --no-legend | awk -v u="$1" '$3 == u { print $1 }'); do
                [ "$(loginctl show-session -p VTNr --value "$id")" = "$2" ] && { echo "$id"; return 0; }
        done
        return 1
}
active_user_is() { loginctl show-seat seat0 -p ActiveSession --value | xargs -r loginctl show-session -p Name --value | grep -x "$1" >/dev/null; }

systemctl restart qosd
start_app app-ui1 /usr/local/bin/qos-ui 3600
start_app app-ui2 /usr/local/bin/qos-ui 3600
ui1=$(procs_of "$(scope_dir app-ui1)" | head -n 1)
ui2=$(procs_of "$(scope_dir app-ui2)" | head -n 1)
check "no source, nobody at the seat: alice's user-interactive rule is held" wait_until nice_is "$ui1" 0
check "explain says why" output_has "no foreground source, and uid $USER_ID has no active seat session" \
        qosctl explain "$ui1"

open_session "$USER_NAME" 2
open_session "$USER_NAME" 4
open_session "$BOB" 3
loginctl activate "$(session_id "$USER_NAME" 2)"
check "loginctl activate: alice's tty2 session is the seat's active one" wait_until active_user_is "$USER_NAME"
check "alice at the seat, no source: her rules' user-interactive applies" wait_until nice_is "$ui1" -20
check "to both of her apps" wait_until nice_is "$ui2" -20
check "status names the policy and the seat's user" status_has "no source: .*uid $USER_ID"

# qosctl run through qosd: alice, at the seat, is granted user-interactive
# and hears nothing; bob, at no seat, is held at utility and told so in one
# line. Neither program has a rule.
cp /bin/sleep /usr/local/bin/qos-run-ui
as_user sh -c 'qosctl run -c user-interactive /usr/local/bin/qos-run-ui 3600 </dev/null >/tmp/qos-run-alice.out 2>&1 &'
runuser -u "$BOB" -- sh -c 'qosctl run -c user-interactive /usr/local/bin/qos-run-ui 3600 </dev/null >/tmp/qos-run-bob.out 2>&1 &'
run_of() { pgrep -u "$1" -x qos-run-ui | head -n 1; }
check "qosctl run -c user-interactive as alice at the seat: granted (nice -20)" \
        wait_until eval 'p=$(run_of "$USER_NAME") && nice_is "$p" -20'
check "and silent" [ ! -s /tmp/qos-run-alice.out ]
check "as bob, at no seat: held at utility (nice 0)" wait_until eval 'p=$(run_of "$BOB") && nice_is "$p" 0'
check "bob is told in one line: $(head -c 300 /tmp/qos-run-bob.out)" eval \
        '[ "$(wc -l </tmp/qos-run-bob.out)" = 1 ] && grep -q "^qosctl run: user-interactive held at utility" /tmp/qos-run-bob.out'
check "ps says held for bob's" eval 'qosctl ps -p "$(run_of "$BOB")" | grep -Eq " utility +held "'
pkill -x qos-run-ui

# mutter's marks, written as alice (her own cgroups), as mutter does.
mark() { # scope value
        as_user python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.xdg.inactive-since", sys.argv[2].encode())' \
                "$(scope_dir "$1")" "$2"
}
mark app-ui1 -1
check "mutter marks app-ui1 focused: it keeps user-interactive" wait_until nice_is "$ui1" -20
check "and app-ui2 is held at utility" wait_until nice_is "$ui2" 0
check "status: the source is mutter, for alice" status_has "mutter for uid $USER_ID"
mark app-ui1 "$(awk '{ print int($1 * 1000000) }' /proc/uptime)"
mark app-ui2 -1
check "the focus moves: app-ui2 user-interactive" wait_until nice_is "$ui2" -20
check "app-ui1 held" wait_until nice_is "$ui1" 0
before=$(refused)
mark app-ui1 garbage
check "a mark that is no timestamp is refused and counted" wait_until eval '[ "$(refused)" -gt "$before" ]'
check "and changes nothing" nice_is "$ui2" -20

# The KWin path: qos-focus relays SetFocus from the user's session bus.
as_user DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$USER_ID/bus qos-focus --no-x11 </dev/null >/dev/null 2>&1 &
relay_up() { as_user busctl --user status org.qosd.Focus1 >/dev/null 2>&1; }
check "qos-focus offers org.qosd.Focus1 on alice's session bus" wait_until relay_up
as_user busctl --user call org.qosd.Focus1 /org/qosd/Focus1 org.qosd.Focus1 SetFocus si kwin "$ui1"
check "a KWin activation through the relay: app-ui1 user-interactive" wait_until nice_is "$ui1" -20
check "app-ui2 held" wait_until nice_is "$ui2" 0
check "status: kwin, for alice" status_has "kwin for uid $USER_ID"

# A source that switches the focus in a loop between two programs of 500
# threads each: refused once its user's budget is spent, and qosd answers
# meanwhile.
cp "$(command -v python3)" /usr/local/bin/qos-ui-many
rule ui-many /usr/local/bin/qos-ui-many user-interactive
many='import threading, time
for _ in range(500): threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
time.sleep(3600)'
start_app app-many1 env PYTHONHOME=/usr /usr/local/bin/qos-ui-many -c "$many"
start_app app-many2 env PYTHONHOME=/usr /usr/local/bin/qos-ui-many -c "$many"
m1=$(procs_of "$(scope_dir app-many1)" | head -n 1)
m2=$(procs_of "$(scope_dir app-many2)" | head -n 1)
threads_of() { ls "/proc/$1/task" | wc -l; }
check "two programs of 500 threads" wait_until eval '[ "$(threads_of "$m1")" -gt 500 ] && [ "$(threads_of "$m2")" -gt 500 ]'
before=$(refused)
for i in $(seq 20); do
        as_user busctl --user call org.qosd.Focus1 /org/qosd/Focus1 org.qosd.Focus1 SetFocus si kwin "$m1"
        as_user busctl --user call org.qosd.Focus1 /org/qosd/Focus1 org.qosd.Focus1 SetFocus si kwin "$m2"
done
check "switching in a loop: refused once the budget is spent" wait_until eval '[ "$(refused)" -gt "$before" ]'
check "qosd answers meanwhile" timeout 2 qosctl status
kill_scope app-many1
kill_scope app-many2
rm -f "$RULES/ui-many.conf"

# Claims qosd must refuse: from alice's session that is not the active
# one, and from bob, who is not at the seat.
before=$(refused)
systemd-run --quiet --wait -p PAMName=login -p User="$USER_NAME" -p TTYPath=/dev/tty5 -p TTYVTDisallocate=no \
        busctl call org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager SetFocus si test "$ui2" 2>/dev/null
check "a claim from alice's inactive session is refused" eval '[ "$(refused)" = $((before + 1)) ]'
runuser -u "$BOB" -- busctl call org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager SetFocus si test "$ui2" 2>/dev/null
check "a claim from bob, at no seat, is refused" eval '[ "$(refused)" = $((before + 2)) ]'
check "neither moved the foreground" nice_is "$ui2" 0

# A user switch: bob's session comes to the front.
runuser -u "$BOB" -- /usr/local/bin/qos-ui 3600 </dev/null >/dev/null 2>&1 &
wait_until pgrep -u "$BOB" -x qos-ui >/dev/null
bobs=$(pgrep -u "$BOB" -x qos-ui)    # the program, not runuser
loginctl activate "$(session_id "$BOB" 3)"
check "loginctl activate: bob is the seat's user" wait_until active_user_is "$BOB"
check "the switch drops what alice's source said" wait_until journal_has "its user left the seat"
check "alice's focused app is held now" wait_until nice_is "$ui1" 0
check "bob's rule applies: he sits at the seat" wait_until nice_is "$bobs" -20
loginctl activate "$(session_id "$USER_NAME" 2)"
check "switching back: alice's apps get it again" wait_until nice_is "$ui1" -20
check "and bob's is held" wait_until nice_is "$bobs" 0

kill "$bobs" 2>/dev/null
pkill -u "$USER_NAME" -x qos-focus
kill_scope app-ui1
kill_scope app-ui2
for unit in $(systemctl list-units --no-legend --plain 'qos-session-*' | awk '{ print $1 }'); do
        systemctl stop "$unit"
done
rm -f "$RULES/ui.conf"
