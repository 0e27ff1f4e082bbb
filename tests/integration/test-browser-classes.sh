#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Debian's firefox-esr under the real qosd with only the rules qosd ships
# (conf/apps.d as the vendor directory, nothing written for it): run
# headless by an unprivileged user on a page with an animation, audio and a
# worker, its threads take their rules' classes. With no foreground source
# and the user at no seat, the rules' user-interactive is held at utility
# and qosctl ps and top say "held" with the rule; the I/O and telemetry
# threads are in their classes at once; once root puts the browser in the
# foreground, its main thread is user-interactive. Skipped where
# firefox-esr is not installed.
source "$(dirname "$0")/lib.sh"
require_root
firefox=/usr/lib/firefox-esr/firefox-esr
[ -x "$firefox" ] || { echo "SKIP: firefox-esr is not installed"; exit 77; }
qosd_root_init
cp "$QOS_SOURCE_ROOT"/conf/apps.d/*.conf "$QOSD_ROOT/usr/share/qos/apps.d/"
RULES="$QOSD_ROOT/usr/share/qos/apps.d/firefox-esr.conf"
UT=$(class_view utility)
BG=$(class_view background)
UI=$(class_view user-interactive)

start_dbus
start_qosd

user=qosweb$$
make_user "$user" "$TEST_TMP/home"
chmod -R a+rX "$QOS_SOURCE_ROOT/tests/data" 2>/dev/null || true
page=$TEST_TMP/page.html
cp "$QOS_SOURCE_ROOT/tests/data/browser-threads.html" "$page"
chmod 644 "$page"
# No session bus (nothing listens there), so none is started for it.
runuser -u "$user" -- setsid env HOME="$TEST_TMP/home/$user" MOZ_HEADLESS=1 \
        DBUS_SESSION_BUS_ADDRESS="unix:path=$TEST_TMP/no-session-bus" \
        "$firefox" --headless --no-remote --new-instance "file://$page" >"$TEST_TMP/firefox.log" 2>&1 &
on_exit "pkill -KILL -u '$user' 2>/dev/null"
main=
wait_for sh -c "pgrep -u '$user' -x firefox-esr >/dev/null" || fail "firefox-esr did not start: $(cat "$TEST_TMP/firefox.log")"
main=$(pgrep -u "$user" -o -x firefox-esr)

# The first thread of the user's firefox processes named NAME.
thread_named() { # name
        local p t
        for p in $(pgrep -u "$user"); do
                for t in /proc/"$p"/task/*; do
                        [ "$(cat "$t/comm" 2>/dev/null)" = "$1" ] && { echo "${t##*/}"; return 0; }
                done
        done
        return 1
}
# "CLASS STATE RULE" of a thread, as qosctl ps -a shows it. A thread's
# name may hold spaces ("Cache2 I/O"): the columns are read where their
# headers start.
ps_of() { # tid
        "$QOSCTL" ps -a | awk -v t="$1" '
                NR == 1 { c = index($0, " CLASS ") + 1; r = index($0, " RULE ") + 1; next }
                $2 == t { split(substr($0, c), a, " "); split(substr($0, r), b, " "); print a[1], a[2], b[1] }'
}
ps_is() { [ "$(ps_of "$1")" = "$2" ]; }
rule_at() { # thread-name: the file:line of its section's Class=
        echo "$RULES:$(awk -v s="[Thread:$1]" '$0 == s { f = 1 } f && /^Class=/ { print NR; exit }' "$RULES")"
}

WAIT_TIMEOUT=60 wait_for thread_named "Cache2 I/O" >/dev/null || fail "no Cache2 I/O thread in firefox-esr"
WAIT_TIMEOUT=60 wait_for thread_named "glean.dispatche" >/dev/null || fail "no glean.dispatche thread"

held=$main
wait_for ps_is "$held" "utility held $(rule_at firefox-esr)" ||
        fail "firefox-esr's main thread: $(ps_of "$held"), expected utility held by its rule"
assert_eq "$(kernel_view "$held")" "$UT" "the held main thread runs at utility"
assert_contains "$("$QOSCTL" explain "$held" | grep "^held ")" "at utility: no foreground source" "explain says why"
cache=$(thread_named "Cache2 I/O")
glean=$(thread_named "glean.dispatche")
wait_for ps_is "$cache" "utility applied $(rule_at "Cache2 I/O")" || fail "Cache2 I/O: $(ps_of "$cache")"
wait_for ps_is "$glean" "background applied $(rule_at glean.dispatche)" || fail "glean.dispatche: $(ps_of "$glean")"
wait_view "$glean" "$BG" "glean.dispatche at background"
ok "no foreground: the main thread held at utility by its rule, I/O utility, telemetry background"

"$QOSCTL" top -b -n 1 -d 0.3 -f firefox >"$TEST_TMP/top.out" || fail "qosctl top -f firefox exited $?"
row=$(awk -v t="$held" '/^[a-z-]+: [0-9]+ threads?/ { cls = $1 } $1 == t { print cls, $6 }' "$TEST_TMP/top.out")
assert_eq "$row" "utility: held" "top: the main thread under utility, held"
row=$(awk -v t="$glean" '/^[a-z-]+: [0-9]+ threads?/ { cls = $1 } $1 == t { print cls, $6 }' "$TEST_TMP/top.out")
assert_eq "$row" "background: applied" "top: glean under background"
ok "qosctl top -f firefox shows them so"

"$QOSCTL" foreground "$main" >/dev/null || fail "qosctl foreground $main exited $?"
wait_for ps_is "$main" "user-interactive applied $(rule_at firefox-esr)" ||
        fail "in the foreground, firefox-esr's main thread: $(ps_of "$main")"
wait_view "$main" "$UI" "the main thread at user-interactive"
wait_for ps_is "$glean" "background applied $(rule_at glean.dispatche)" || fail "glean.dispatche moved: $(ps_of "$glean")"
ok "in the foreground: the main thread user-interactive, telemetry still background"
"$QOSCTL" foreground --auto >/dev/null
