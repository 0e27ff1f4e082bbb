#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosctl check and import as a user sees them: output format, exit codes,
# --root / $QOS_ROOT, user directories. No root needed.
set -euo pipefail

: "${QOSCTL:?}" "${QOS_SOURCE_ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# run EXPECTED_RC CMD...: output in $tmp/out and $tmp/err
run() {
        local want=$1 rc=0
        shift
        "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
        [ "$rc" -eq "$want" ] || { cat "$tmp/out" "$tmp/err" >&2; fail "'$*' exited $rc, expected $want"; }
}
has() { grep -qF -- "$2" "$tmp/$1" || { cat "$tmp/$1" >&2; fail "$1 lacks: $2"; }; }
lacks() { ! grep -qF -- "$2" "$tmp/$1" || { cat "$tmp/$1" >&2; fail "$1 has: $2"; }; }

root=$tmp/root
# The directories as this build has them: the --effective header names them.
read -r vendor admin runtime < <("$QOSCTL" --root "$root" check --effective 2>/dev/null |
        sed -n 's/^### system rules from \(.*\) < \(.*\) < \(.*\)$/\1 \2 \3/p')
[ -n "$runtime" ] || fail "no directories in the --effective header"
case $vendor in "$root"/*apps.d) ;; *) fail "vendor directory $vendor not below the root" ;; esac
mkdir -p "$vendor" "$admin/editor.conf.d" "$runtime"
printf '[Match]\nExecutable=/usr/bin/editor\n[Process]\nClass=utility\n' >"$vendor/editor.conf"
printf '[Thread:render]\nClass=user-interactive\n' >"$admin/editor.conf.d/10-render.conf"
printf '[Process]\nClass=background\n' >"$vendor/indexer.conf"
ln -s /dev/null "$runtime/indexer.conf"

# A clean tree: no messages, exit 0, the summary on stderr.
run 0 "$QOSCTL" --root "$root" check
has err "2 files, 2 rules: 0 errors, 0 warnings"
QOS_ROOT=$root run 0 "$QOSCTL" check
has err "2 files, 2 rules: 0 errors, 0 warnings"
# Another root: its (missing) directories, not the tree.
QOS_ROOT=$tmp/elsewhere run 0 "$QOSCTL" check
has err "0 files, 0 rules"

run 0 "$QOSCTL" --root "$root" check --effective
has out "# $vendor/editor.conf"
has out "# + drop-in $admin/editor.conf.d/10-render.conf"
has out "# indexer.conf: masked by $runtime/indexer.conf"
has out "# ignored: $vendor/indexer.conf"
has out "Class=user-interactive"
has out "; $admin/editor.conf.d/10-render.conf:2"
# One application's part reads back as the same rules, without a message.
run 0 "$QOSCTL" check --effective "$vendor" "$admin"
sed -n '/^# .*editor.conf$/,/^# .*indexer.conf/p' "$tmp/out" | grep -v indexer >"$tmp/editor.conf"
run 0 "$QOSCTL" check --effective "$tmp/editor.conf"
has err "1 files, 2 rules: 0 errors, 0 warnings"
has out "Executable=/usr/bin/editor"
has out "[Thread:render]"

# Errors: file:line: error: message, exit 1; warnings alone exit 0.
printf '[Process]\nClass=fast\nbroken\n[Limits]\nMaxClass=ui\n' >"$admin/bad.conf"
run 1 "$QOSCTL" --root "$root" check
has err "$admin/bad.conf:2: error: invalid class 'fast' for Class"
has err "$admin/bad.conf:3: error: expected 'Key=Value' or '[Section]'"
has err "2 errors"
rm "$admin/bad.conf"
printf '[Process]\nClass=bg\nNice=5\n' >"$admin/warn.conf"
run 0 "$QOSCTL" --root "$root" check
has err "$admin/warn.conf:3: warning: unknown key 'Nice' in [Process]; ignored"
rm "$admin/warn.conf"

# Operands replace the system directories; files are read on their own.
printf '{ "make": { "qos": "QOS_BACKGROUND", "period": 1 } }\n' >"$tmp/sq.json"
run 0 "$QOSCTL" --root "$root" check "$tmp/sq.json"
has err "$tmp/sq.json:1: warning: \"period\" is not supported"
has err "1 files, 1 rules"
run 1 "$QOSCTL" check "$tmp/nonexistent.conf"
has err "$tmp/nonexistent.conf: error: cannot access"
lacks err "0 errors"
run 0 "$QOSCTL" check "$QOS_SOURCE_ROOT/tests/data/schedqos/desktop.json"
run 1 "$QOSCTL" check "$QOS_SOURCE_ROOT/tests/data/schedqos/syntax-error.json"
has err "syntax-error.json:5: error: column 2:"

# A user directory is the caller's own, layered on top.
mkdir -p "$tmp/user"
printf '[Thread:render]\nClass=utility\n' >"$tmp/user/extra.conf"
run 0 "$QOSCTL" --root "$root" check --effective --user-dir "$tmp/user"
has out "### rules for uid $(id -u)"
has out "# $tmp/user/extra.conf"
HOME=$tmp/home XDG_CONFIG_HOME= run 0 "$QOSCTL" --root "$root" check --user
# Links as qosd takes them: within the home loaded, out of it refused.
mkdir -p "$tmp/home/.config/qos/apps.d" "$tmp/home/dotfiles"
printf '[Match]\nExecutable=/usr/bin/dot\n[Process]\nClass=background\n' >"$tmp/home/dotfiles/dot.conf"
ln -s ../../../dotfiles/dot.conf "$tmp/home/.config/qos/apps.d/dot.conf"
HOME=$tmp/home XDG_CONFIG_HOME= run 0 "$QOSCTL" --root "$root" check --effective --user
has out "/usr/bin/dot"
ln -s "$tmp/user/extra.conf" "$tmp/home/.config/qos/apps.d/out.conf"
HOME=$tmp/home XDG_CONFIG_HOME= run 1 "$QOSCTL" --root "$root" check --user
has err "out.conf: error: cannot read: a symbolic link out of the owner's home directory, not followed"
HOME= XDG_CONFIG_HOME= run 2 "$QOSCTL" check --user

run 0 "$QOSCTL" check --help
has out "Usage: qosctl [--root DIR] check"
run 2 "$QOSCTL" check --bogus

# import: one file per rule, the losses said per rule, exit 1 when some
# lines or rules were skipped; the result checks clean.
dest=$tmp/imported
run 1 "$QOSCTL" import ananicy "$QOS_SOURCE_ROOT/tests/data/ananicy" "$dest"
has out "19 of 20 rules written to $dest, 10 with settings not carried over"
has err "misc.rules:10: warning: mystery: unknown type 'NoSuchType'; converted from the rule's own keys"
has err "misc.rules:14: error: no \"name\", \"type\" or \"cgroup\" string; line skipped"
has err "audio.rules:2: warning: jackd: rtprio 70 not carried over: qosd gives no real-time priorities"
brave='\x2fusr\x2flib\x2fbrave-bin\x2fbrave.conf'
[ -f "$dest/$brave" ] || fail "no file for the brave rule"
grep -qF "Executable=/usr/lib/brave-bin/brave" "$dest/$brave" || fail "brave rule's match"
grep -qF "#   latency_nice -3 not carried over" "$dest/$brave" || fail "loss not noted in the file"
[ "$(ls "$dest" | wc -l)" -eq 19 ] || fail "expected 19 files"
run 0 "$QOSCTL" check "$dest"
has err "19 files, 19 rules: 0 errors, 0 warnings"

# Existing files are kept unless --force.
run 1 "$QOSCTL" import ananicy "$QOS_SOURCE_ROOT/tests/data/ananicy" "$dest"
has err "$dest/firefox.conf: error: File exists (use --force to overwrite)"
has out "0 of 20 rules written"
run 1 "$QOSCTL" import ananicy --force "$QOS_SOURCE_ROOT/tests/data/ananicy" "$dest"
has out "19 of 20 rules written"

run 2 "$QOSCTL" import ananicy onlyone
run 2 "$QOSCTL" import schedqos a b
run 1 "$QOSCTL" import ananicy "$tmp/nonexistent" "$tmp/dest2"
has err "No such file or directory"

# What a rule directory holds that is not a rule file is said (hidden
# files aside), one message per directory, with advice for ananicy's.
junk=$tmp/junk
mkdir -p "$junk/app.conf.d" "$tmp/userjunk"
printf '[Process]\nClass=bg\n' >"$junk/app.conf"
printf '# Games\n{ "name": "steam", "type": "Game" }\n' >"$junk/games.rules"
: >"$junk/app.conf~"
: >"$junk/.app.conf.swp"
: >"$junk/app.conf.d/10-x.conf.orig"
skipped="2 files skipped, each not a rule file (*.conf, *.json, NAME.conf.d/): 'app.conf~' and 'games.rules'"
advice="'qosctl import ananicy SRC DEST' converts ananicy rules into qos.d files"
run 0 "$QOSCTL" check "$junk"
has err "$junk: warning: $skipped; $advice"
has err "$junk/app.conf.d/10-x.conf.orig: warning: skipped: not a drop-in (*.conf)"
lacks err ".swp"
has err "1 files, 1 rules: 0 errors, 2 warnings"
# A user's directory says its own, and the system's are said once.
: >"$tmp/userjunk/notes.txt"
run 0 "$QOSCTL" check --user-dir "$tmp/userjunk" "$junk"
has err "$tmp/userjunk/notes.txt: warning: skipped: not a rule file (*.conf, *.json, NAME.conf.d/)"
[ "$(grep -cF "$skipped" "$tmp/err")" = 1 ] || { cat "$tmp/err" >&2; fail "the system directory's skipped files said twice"; }
# ananicy's lines under a .json name, and a .rules file given by name.
cp "$junk/games.rules" "$junk/games.json"
run 1 "$QOSCTL" check "$junk"
has err "$junk/games.json:2: error: ananicy's format (a JSON object per line), not a schedqos app config; file skipped; $advice"
run 1 "$QOSCTL" check "$junk/games.rules"
has err "$junk/games.rules: error: not a .conf or .json file; skipped; $advice"

# Names from a directory someone else wrote (a user's): a file named with
# terminal escapes holding an Executable= with more of them, and a FIFO
# named with a newline. Nothing reaches the terminal raw, and no name adds
# a line of its own (a "forged:" error, a "[Process]" section).
hostile=$tmp/hostile
mkdir -p "$hostile"
printf '[Match]\nExecutable=/usr/bin/\033]0;X\007a\n[Process]\nClass=background\n' >"$hostile/$(printf 'a\033[31mred').conf"
mkfifo "$hostile/$(printf 'f\nforged: [Process]').conf"
run 1 "$QOSCTL" check --effective "$hostile"
for f in out err; do
        if LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/$f"; then
                fail "check --effective: a control character in its $f"
        fi
        if grep -n '^forged' "$tmp/$f"; then
                fail "check --effective: a file name added a line to its $f"
        fi
done
has out 'Executable=/usr/bin/\x1b]0;X\x07a'
has out '# '"$hostile"'/a\x1b[31mred.conf'
has err "$hostile"'/f\x0aforged: [Process].conf: error: cannot read: not a regular file'
echo "ok - qosctl check and import"
