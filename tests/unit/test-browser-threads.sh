#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The browsers' shipped rules against the browsers installed here: each of
# Debian's firefox-esr and chromium that is installed runs (under Xvfb when
# there is one, else headless) on tests/data/browser-threads.html, and
# every [Thread:] pattern of its rule file must match a thread of its
# processes (/proc/PID/task/*/comm) within 60 s (headless, but for the
# few that only a display starts); its processes must run the
# executable the file names, and Chromium's services must carry the
# command line chromium-services.conf matches. A browser update that
# renames threads fails here instead of leaving rules that match nothing.
# Skipped where neither browser is installed. No root, no qosd.
set -uo pipefail

: "${QOS_SOURCE_ROOT:?}"
rules=$QOS_SOURCE_ROOT/conf/apps.d
page=file://$QOS_SOURCE_ROOT/tests/data/browser-threads.html
firefox=/usr/lib/firefox-esr/firefox-esr
chromium=/usr/lib/chromium/chromium
[ -x "$firefox" ] || [ -x "$chromium" ] || { echo "SKIP: neither firefox-esr nor chromium is installed"; exit 77; }

tmp=$(mktemp -d)
xvfb='' http='' browser='' failures=0
stop_session() { # the session the browser leads, every process of it
        [ -n "$browser" ] || return 0
        pkill -KILL -s "$browser" 2>/dev/null
        for _ in $(seq 100); do pgrep -s "$browser" >/dev/null || break; sleep 0.1; done
        browser=''
}
cleanup() {
        stop_session
        local p
        for p in $xvfb $http; do
                kill "$p" 2>/dev/null
                wait "$p" 2>/dev/null
        done
        rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

headless=yes how=headless
if command -v Xvfb >/dev/null; then
        Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x800x24 3>"$tmp/display" 2>"$tmp/xvfb.log" &
        xvfb=$!
        for _ in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
        if [ -s "$tmp/display" ]; then
                DISPLAY=:$(cat "$tmp/display")
                export DISPLAY
                headless='' how="under Xvfb"
        fi
fi
export HOME=$tmp/home
mkdir -p "$HOME"

# The page twice: from a file (Firefox's "file:// Content" process) and
# from a web server on 127.0.0.1 (its "Isolated Web Co" processes).
python3 -u -m http.server --bind 127.0.0.1 --directory "$QOS_SOURCE_ROOT/tests/data" 0 >"$tmp/http.log" 2>&1 &
http=$!
for _ in $(seq 100); do grep -q ' port [0-9]' "$tmp/http.log" && break; sleep 0.1; done
port=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$tmp/http.log" | head -1)
[ -n "$port" ] || { cat "$tmp/http.log" >&2; echo "FAIL: no web server on 127.0.0.1"; exit 1; }
pages=("$page" "http://127.0.0.1:$port/browser-threads.html") # headless Chromium takes one

# Threads a browser starts only with a display (Firefox's canvas thread).
display_only="CanvasRenderer"

patterns() { # the [Thread:GLOB] sections of a rule file, one a line
        sed -n 's/^\[Thread:\(.*\)\]$/\1/p' "$1"
}

# threads SID: the names of every thread of the session's processes
threads() {
        local p
        for p in $(pgrep -s "$1"); do cat /proc/"$p"/task/*/comm 2>/dev/null; done | sort -u
}

# unmatched FILE NAMES: the patterns of FILE that match none of NAMES
unmatched() {
        local pat name hit
        while IFS= read -r pat; do
                if [ -n "$headless" ] && [[ " $display_only " == *" $pat "* ]]; then continue; fi
                hit=
                while IFS= read -r name; do
                        # shellcheck disable=SC2053 # the pattern is a glob, as qosd matches it
                        if [[ $name == $pat ]]; then hit=1; break; fi
                done <<<"$2"
                [ -n "$hit" ] || echo "$pat"
        done < <(patterns "$1")
}

# check NAME EXE ARGS...: start the browser in a session of its own, wait
# until every pattern of NAME.conf has a thread, check, stop it.
check() {
        local name=$1 exe=$2 version missing names p exe_seen before=$failures
        shift 2
        version=$("$exe" --version 2>/dev/null | head -1 | sed 's/ *$//')
        # A session bus address where nothing listens: without one, libdbus
        # starts a bus of its own (dbus-launch, where dbus-x11 is
        # installed) in the browser's session, which outlives the test.
        DBUS_SESSION_BUS_ADDRESS=unix:path=$tmp/no-session-bus setsid "$exe" "$@" >"$tmp/$name.log" 2>&1 &
        browser=$!
        disown "$browser"
        for _ in $(seq 120); do
                names=$(threads "$browser")
                missing=$(unmatched "$rules/$name.conf" "$names")
                [ -z "$missing" ] && break
                sleep 0.5
        done
        [ -z "$missing" ] || fail "$name ($version): no thread matches [Thread:$(sed ':a;N;$!ba;s/\n/], [Thread:/g' <<<"$missing")]; its threads: $(tr '\n' ',' <<<"$names")"
        for p in $(pgrep -s "$browser"); do
                exe_seen=$(readlink "/proc/$p/exe" 2>/dev/null) || continue
                [ "$exe_seen" = "$exe" ] || fail "$name: process $p runs $exe_seen, not $exe (its rule file names $exe)"
                grep -qxF "Executable=$exe" "$rules/$name.conf" || fail "$name.conf does not name $exe"
        done
        if [ "$name" = chromium ]; then
                local services=0
                for p in $(pgrep -s "$browser"); do
                        [[ $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) == *" --type=utility "* ]] && services=$((services + 1))
                done
                [ "$services" -gt 0 ] || fail "chromium ($version): no process with ' --type=utility ' (chromium-services.conf)"
        fi
        stop_session
        [ "$failures" = "$before" ] || return
        local skipped=
        [ -z "$headless" ] || skipped=$(patterns "$rules/$name.conf" | grep -xF -f <(tr ' ' '\n' <<<"$display_only") | tr '\n' ' ')
        echo "ok: $name ($version, $how): $(patterns "$rules/$name.conf" | wc -l) thread patterns matched${skipped:+ but ${skipped% }, which needs a display}"
}

# Neither browser may reach past this machine: every connection goes to a
# proxy at 127.0.0.1:9, where nothing listens, and their background
# services (updates, telemetry, safe browsing) are off.
if [ -x "$firefox" ]; then
        mkdir -p "$tmp/firefox"
        cat >"$tmp/firefox/user.js" <<'EOF'
user_pref("network.proxy.type", 1);
user_pref("network.proxy.http", "127.0.0.1");
user_pref("network.proxy.http_port", 9);
user_pref("network.proxy.ssl", "127.0.0.1");
user_pref("network.proxy.ssl_port", 9);
user_pref("network.proxy.socks", "127.0.0.1");
user_pref("network.proxy.socks_port", 9);
user_pref("network.proxy.socks_remote_dns", true);
user_pref("network.trr.mode", 5);
user_pref("network.dns.disablePrefetch", true);
user_pref("network.prefetch-next", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("app.update.enabled", false);
user_pref("app.normandy.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
EOF
        check firefox-esr "$firefox" --no-remote --profile "$tmp/firefox" ${headless:+--headless} "${pages[@]}"
fi
if [ -x "$chromium" ]; then
        check chromium "$chromium" --no-sandbox --no-first-run --user-data-dir="$tmp/chromium" \
                --proxy-server=127.0.0.1:9 --disable-background-networking --disable-component-update \
                --disable-sync --no-pings --disable-domain-reliability --no-default-browser-check \
                --autoplay-policy=no-user-gesture-required ${headless:+--headless=new} "${pages[0]}"
fi
[ "$failures" = 0 ] || exit 1
