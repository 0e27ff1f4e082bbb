#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Games through Feral's gamemode: the real gamemoded on a test user's
# session bus, games started with the real gamemoderun, and qos-focus
# passing the games on to qosd (SetGames). With no foreground source and
# the user at no seat, a rule's user-interactive is held; the same program
# as a game is not, and a game no rule names gets user-initiated for its
# main thread; qosctl status lists the games. When gamemoded goes, so does
# the list, and the threads go back. This machine has no seats, so the
# user is qosd.conf's ForegroundUser=; another user's SetGames is refused.
. "$(dirname "$0")/lib.sh"
require_root
: "${QOS_FOCUS:?QOS_FOCUS must point at qos-focus}"
for tool in gamemoded gamemoderun; do
        command -v "$tool" >/dev/null || [ -x "/usr/games/$tool" ] ||
                fail "$tool is missing (scripts/install-deps.sh --group test installs gamemode)"
done
export PATH=$PATH:/usr/games

alice=qos-t-gmalice
bob=qos-t-gmbob
make_user "$alice" "$TEST_TMP/home"
make_user "$bob"
focus_bin=$(user_runnable "$QOS_FOCUS")
chmod 711 "$TEST_TMP"
# gamemode's own renice and I/O priority off: qosd's classes are what is
# tested (with them on, gamemode's change is someone else's to qosd).
mkdir -p "$TEST_TMP/home/$alice/.config"
printf '[general]\nrenice=0\nioprio=off\ninhibit_screensaver=0\ndesiredgov=\n' >"$TEST_TMP/home/$alice/.config/gamemode.ini"
chown -R "$alice" "$TEST_TMP/home/$alice"

UI=$(class_view user-interactive)
UIN=$(class_view user-initiated)
UT=$(class_view utility)

qosd_root_init
printf '[Daemon]\nUserRules=no\nForegroundUser=%s\n' "$alice" >"$QOSD_ROOT/etc/qos/qosd.conf"
GAME=$(test_program qos-game)
write_rule game "$GAME" - "render*" user-interactive
PLAIN=$(test_program qos-plain-game)
chmod -R a+rX "$QOSD_BIN"
start_dbus
start_qosd --log-level debug

# Alice's session bus, gamemoded and qos-focus on it.
start_session_bus "$alice"
as() { # user command...
        local user=$1
        shift
        # gamemoderun puts its library first in LD_PRELOAD, before a
        # sanitizer build's runtime: let that be.
        runuser -u "$user" -- env HOME="$TEST_TMP/home/$user" XDG_CONFIG_HOME="$TEST_TMP/home/$user/.config" \
                ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
                DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
                DBUS_SESSION_BUS_ADDRESS="$SESSION_BUS" PATH="$PATH" "$@"
}
as "$alice" gamemoded >"$TEST_TMP/gamemoded.log" 2>&1 &
gmd=$!
on_exit "kill $gmd 2>/dev/null"
wait_for as "$alice" busctl --user status com.feralinteractive.GameMode >/dev/null ||
        fail "gamemoded did not take its name: $(cat "$TEST_TMP/gamemoded.log")"
as "$alice" "$focus_bin" --no-x11 --no-relay --log-level debug >"$TEST_TMP/focus.log" 2>&1 &
on_exit "kill $!"
wait_for grep -q "following the focus: gamemode" "$TEST_TMP/focus.log" || fail "qos-focus did not start: $(cat "$TEST_TMP/focus.log")"

# A program as USER (optionally under gamemoderun), with thread NAME; sets
# PID and TID (the named thread's).
start_prog() { # user name exe [gamemoderun]
        local out=$TEST_TMP/$2.out
        as "$1" ${4:+gamemoderun} "$3" "$2" >"$out" 2>"$TEST_TMP/$2.err" &
        on_exit "pkill -f '$3 $2' 2>/dev/null"
        WAIT_TIMEOUT=$STARTUP_TIMEOUT wait_for grep -qx ready "$out" || fail "$2 did not start: $(cat "$TEST_TMP/$2.err")"
        TID=$(awk -v n="$2" '$2 == n { print $1 }' "$out")
        PID=$(awk '$1 == "Tgid:" { print $2 }' "/proc/$TID/status")
}
games() { qosd_status_text Games; }

start_prog "$alice" render-a "$GAME"
wait_view "$TID" "$UT" "not a game, no source, alice at no seat: the rule's user-interactive held"
ok "outside gamemode the rule's user-interactive is held"

start_prog "$alice" render-g "$GAME" gamemoderun
game=$PID game_render=$TID
wait_for sh -c "'$QOSCTL' status | grep -q '^Games .*$game'" || fail "qosd did not learn the game: $(games); $(tail -5 "$TEST_TMP/focus.log")"
wait_view "$TID" "$UI" "the game's rule: user-interactive, not held"
assert_contains "$(games)" "1: $game (gamemode" "status lists the game"
assert_contains "$("$QOSCTL" explain "$TID")" "yes (a game gamemode runs)" "explain: in the foreground as a game"
ok "a game under gamemoderun is in the foreground: its rule's user-interactive applies"

start_prog "$alice" plain-g "$PLAIN" gamemoderun
plain=$PID
wait_view "$plain" "$UIN" "a game no rule names: its main thread user-initiated"
assert_eq "$(kernel_view "$TID")" "$UT" "its other threads keep the default"
assert_contains "$("$QOSCTL" explain "$plain")" "a game gamemode runs (no rule names it)" "explain says why"
ok "a game no rule names gets user-initiated for its main thread"

# Another user cannot name games: at no seat, not trusted.
refused_at_no_seat "$bob" SetGames
ok "another user's SetGames is refused"

# gamemoded goes: no game runs any more, the threads go back.
pkill -u "$alice" -x gamemoded || fail "gamemoded is not running"
wait_for status_is Games none || fail "the games outlived gamemoded: $(games); qos-focus: $(tail -5 "$TEST_TMP/focus.log")"
wait_view "$game_render" "$UT" "the game's render thread held again"
wait_view "$plain" "$UT" "the rule-less game's main thread back to the default"
ok "when gamemoded goes, the games leave the foreground and their threads go back"
