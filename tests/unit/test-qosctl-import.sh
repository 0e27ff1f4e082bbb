#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosctl import ananicy on a collection shaped like CachyOS' ananicy-rules:
# nested category directories (with spaces and '&'), games' executables
# named in Japanese and Chinese, names that differ only in non-ASCII
# characters, a name with trailing white space, text after the object,
# comments, a rule given twice alike, .types and .cgroups files. Every rule
# ananicy-cpp would load is written, to a file named after it, and the
# import exits 0 with warnings only for settings that are not carried over.
# No root needed.
set -euo pipefail

: "${QOSCTL:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$2" "$tmp/$1" || { cat "$tmp/$1" >&2; fail "$1 lacks: $2"; }; }

src=$tmp/ananicy.d
mkdir -p "$src/00-default/Games/wine_proton/non-latin" "$src/00-default/Development & Programming" \
        "$src/00-default/Audio-Video"
cat >"$src/00-cgroups.cgroups" <<'X'
# CPU quota groups
{ "cgroup": "cpu80", "CPUQuota": 80 }
X
cat >"$src/00-types.types" <<'X'
# Types
{ "type": "Game", "nice": -5, "ioclass": "best-effort", "latency_nice": -10 }
{ "type": "BG_CPUIO", "nice": 16, "ioclass": "idle", "cgroup": "cpu80" }
{ "type": "Player-Video", "nice": -3 }
X
cat >"$src/00-default/Games/wine_proton/non-latin/wine_proton_japanese.rules" <<'X'
# Add games in alphabetical order.

### Japanese ###

# Kanji de GO! 漢字でGO! 集英社マンガ祭
{ "name": "集英社マンガ祭.exe", "type": "Game" }
# Tōhō Kōmakyō 東方紅魔郷
{ "name": "東方紅魔郷.exe", "type": "Game" }
# The same title in traditional characters: one character differs.
{ "name": "東方紅魔鄉.exe", "type": "Game" }
{ "name": "ドラゴンクエストＸ　オフライン.exe", "type": "Game" }
{ "name": "SKETCHY MASSAGE.exe", "type": "Game" }
{ "name": "Game Launcher ", "type": "Game" }
X
cat >"$src/00-default/Games/wine_proton/non-latin/wine_proton_chinese.rules" <<'X'
### Chinese ###
{ "name": "原神.exe", "type": "Game" }
{ "name": "崩坏：星穹铁道.exe", "type": "Game" }
{ "name": "鸣潮.exe", "type": "Game" },
{ "name": "原神.exe", "type": "Game" }
{ "name": "明潮.exe", "type": "Game" } # same shape, other first character
X
cat >"$src/00-default/Games/wine_proton/wine_proton_non-latin.rules" <<'X'
{ "name": "Café.exe", "type": "Game" }
{ "name": "Cafè.exe", "type": "Game" }
{ "name": "Ærøskøbing.exe", "type": "Game", "rtprio": 5 }
X
cat >"$src/00-default/Development & Programming/ccache.rules" <<'X'
{ "name": "ccache", "type": "BG_CPUIO" }
X
cat >"$src/00-default/Audio-Video/mpv.rules" <<'X'
{ "name": "mpv", "type": "Player-Video" }
X

dest=$tmp/qos.d
rc=0
"$QOSCTL" import ananicy "$src" "$dest" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/out" "$tmp/err" >&2; fail "import exited $rc"; }
has out "15 of 15 rules written to $dest"
! grep -F ': error:' "$tmp/err" || fail "errors in the import"
! grep -F ': warning:' "$tmp/err" | grep -vF 'not carried over' || fail "warnings about more than lost settings"
has err "wine_proton_chinese.rules:5: note: rule '原神.exe' again (first at $src/00-default/Games/wine_proton/non-latin/wine_proton_chinese.rules:2), the same"
has err "wine_proton_chinese.rules:4: note: text around the JSON object ignored, as ananicy-cpp does"
has err "wine_proton_japanese.rules:13: note: name 'Game Launcher ' starts or ends with white space; matched as it is"
has err "wine_proton_non-latin.rules:3: warning: Ærøskøbing.exe: rtprio 5 not carried over"

# One file per rule, named after it; the match is in the file.
[ "$(find "$dest" -type f | wc -l)" -eq 15 ] || { ls "$dest" >&2; fail "expected 15 files"; }
for name in 集英社マンガ祭.exe 東方紅魔郷.exe 東方紅魔鄉.exe ドラゴンクエストＸ　オフライン.exe "SKETCHY MASSAGE.exe" \
        原神.exe 崩坏：星穹铁道.exe 鸣潮.exe 明潮.exe Café.exe Cafè.exe Ærøskøbing.exe ccache mpv; do
        f="$dest/$name.conf"
        [ -f "$f" ] || { ls "$dest" >&2; fail "no file $f"; }
        grep -qxF "Executable=$name" "$f" || fail "$f does not match $name: $(cat "$f")"
done
grep -qxF "Executable=Game Launcher[ ]" "$dest/Game Launcher .conf" || fail "trailing space not kept"
grep -qxF "Class=user-initiated" "$dest/原神.exe.conf" || fail "原神.exe: not user-initiated"
grep -qxF "Class=background" "$dest/ccache.conf" || fail "ccache: not background"

# What was written loads without a message.
rc=0
"$QOSCTL" check "$dest" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/err" >&2; fail "check exited $rc"; }
has err "15 files, 15 rules: 0 errors, 0 warnings"
echo "ok - qosctl import ananicy: a CachyOS-shaped collection, every rule written"
