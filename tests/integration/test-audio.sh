#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# An app playing audio keeps user-initiated while it is not in the
# foreground: the real pipewire and wireplumber as a test user, a null
# sink, a player (Debian's pw-cat, copied so that a rule can name it)
# whose rule says user-interactive, and qos-focus passing on the apps with
# a running stream (SetAudio). With no foreground source and the user at
# no seat, the player's user-interactive is held: at user-initiated while
# its stream runs, at utility once the stream is unlinked (idle), and the
# same when PipeWire goes away. qosctl status and explain say so; another
# user's SetAudio is refused. This machine has no seats, so the user is
# qosd.conf's ForegroundUser=.
. "$(dirname "$0")/lib.sh"
require_root
: "${QOS_FOCUS:?QOS_FOCUS must point at qos-focus}"
for tool in pipewire wireplumber wpctl pw-cat pw-link; do
        command -v "$tool" >/dev/null ||
                fail "$tool is missing (scripts/install-deps.sh --group test installs pipewire, pipewire-bin, wireplumber)"
done

alice=qos-t-audalice
bob=qos-t-audbob
make_user "$alice" "$TEST_TMP/home"
make_user "$bob"
focus_bin=$(user_runnable "$QOS_FOCUS")
chmod 711 "$TEST_TMP"
home=$TEST_TMP/home/$alice
runtime=$TEST_TMP/run-$alice
mkdir -p "$runtime" "$home/.config/pipewire/pipewire.conf.d"
# A sink that plays to nowhere, and drives the graph as a sound card would.
cat >"$home/.config/pipewire/pipewire.conf.d/null-sink.conf" <<'EOF'
context.objects = [
    { factory = adapter
      args = { factory.name = support.null-audio-sink node.name = "qos-null"
               media.class = "Audio/Sink" audio.position = [ FL FR ] } }
]
EOF
chown -R "$alice" "$home" "$runtime"
chmod 700 "$runtime"
# Five minutes of silence, for a stream that runs while the test looks.
sound=$TEST_TMP/silence.wav
python3 -c 'import sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(8000)
w.writeframes(bytes(8000 * 4 * 300)); w.close()' "$sound"
chmod 644 "$sound"

UIN=$(class_view user-initiated)
UT=$(class_view utility)

qosd_root_init
printf '[Daemon]\nUserRules=no\nForegroundUser=%s\n' "$alice" >"$QOSD_ROOT/etc/qos/qosd.conf"
cp "$(command -v pw-cat)" "$QOSD_BIN/qos-player"
PLAYER=$QOSD_BIN/qos-player
write_rule player "$PLAYER" - qos-player user-interactive
chmod -R a+rX "$QOSD_BIN"
start_dbus
start_qosd --log-level debug

start_session_bus "$alice"
as() { # command...
        runuser -u "$alice" -- env HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_RUNTIME_DIR="$runtime" \
                DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" DBUS_SESSION_BUS_ADDRESS="$SESSION_BUS" "$@"
}
as pipewire >"$TEST_TMP/pipewire.log" 2>&1 &
on_exit "pkill -u '$alice' -x pipewire 2>/dev/null"
wait_for test -S "$runtime/pipewire-0" || fail "pipewire did not start: $(cat "$TEST_TMP/pipewire.log")"
as wireplumber >"$TEST_TMP/wireplumber.log" 2>&1 &
on_exit "pkill -u '$alice' -x wireplumber 2>/dev/null"
# wireplumber links streams to the default sink: once it has chosen one.
WAIT_TIMEOUT=60 wait_for as wpctl inspect @DEFAULT_AUDIO_SINK@ ||
        fail "wireplumber chose no sink: $(tail -5 "$TEST_TMP/wireplumber.log"); $(as pw-cli ls Node 2>&1 | grep node.name)"
as "$focus_bin" --no-x11 --no-relay --no-gamemode --log-level debug >"$TEST_TMP/focus.log" 2>&1 &
on_exit "kill $! 2>/dev/null"
wait_for grep -q "following the focus: PipeWire" "$TEST_TMP/focus.log" ||
        fail "qos-focus did not start: $(cat "$TEST_TMP/focus.log")"

audio() { qosd_status_text Audio; }

as "$PLAYER" --playback --volume 0 "$sound" >"$TEST_TMP/player.log" 2>&1 &
on_exit "pkill -u '$alice' -x qos-player 2>/dev/null"
wait_for pgrep -u "$alice" -x qos-player || fail "the player did not start: $(cat "$TEST_TMP/player.log")"
player=$(pgrep -u "$alice" -x qos-player)
WAIT_TIMEOUT=60 wait_for sh -c "'$QOSCTL' status | grep -q '^Audio .*$player'" ||
        fail "qosd did not learn that the player plays: Audio $(audio); qos-focus: $(cat "$TEST_TMP/focus.log"); wireplumber: $(tail -5 "$TEST_TMP/wireplumber.log"); $(as pw-cli ls Node 2>&1 | grep -E "node.name|media.class")"
assert_contains "$(audio)" "1: $player (PipeWire" "status lists the player"
wait_view "$player" "$UIN" "its stream runs: the rule's user-interactive held at user-initiated"
assert_contains "$("$QOSCTL" explain "$player")" "at user-initiated: no foreground source" "explain says where it is held"
assert_contains "$("$QOSCTL" explain "$player")" "it plays audio" "explain says why"
ok "an app playing audio, not in the foreground, is held at user-initiated"

# Unlinked from the sink, the stream is idle: nothing plays.
node=$(as pw-link -o | awk -F: '$1 != "qos-null" && /output_F[LR]$/ { print $1; exit }')
[ -n "$node" ] || fail "no output port of the player: $(as pw-link -o)"
for ch in FL FR; do
        as pw-link -d "$node:output_$ch" "qos-null:playback_$ch" || fail "cannot unlink $node:output_$ch: $(as pw-link -l)"
done
wait_for status_is Audio none ||
        fail "the idle stream still counts: Audio $(audio)"
wait_view "$player" "$UT" "its stream idle: held at utility again"
ok "when its stream stops, the app is held at utility again"

# Another user cannot name apps: at no seat, not trusted.
refused_at_no_seat "$bob" SetAudio
ok "another user's SetAudio is refused"

# Linked again it plays; then PipeWire goes, and with it the list.
for ch in FL FR; do
        as pw-link "$node:output_$ch" "qos-null:playback_$ch" || fail "cannot link $node:output_$ch again"
done
wait_view "$player" "$UIN" "its stream runs again"
pkill -u "$alice" -x wireplumber
pkill -u "$alice" -x pipewire || fail "pipewire is not running"
wait_for status_is Audio none ||
        fail "the list outlived PipeWire: Audio $(audio); qos-focus: $(tail -5 "$TEST_TMP/focus.log")"
ok "when PipeWire goes, nothing counts as playing"
