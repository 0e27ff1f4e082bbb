#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosd started by a user other than root refuses with one line and exit
# status 1, before it reads or creates anything; --help and --version
# still work. Run as root, it runs qosd as nobody (setpriv); run as
# another user, as that user. qosd never gets as far as starting.
set -uo pipefail

: "${QOSD:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

as_user=()
if [ "$(id -u)" = 0 ]; then
        command -v setpriv >/dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }
        as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        # nobody must reach the program: a copy in a directory anyone reads.
        chmod 755 "$tmp"
        cp "$QOSD" "$tmp/qosd"
        chmod 755 "$tmp/qosd"
        QOSD=$tmp/qosd
fi

# A root anyone may write to: whatever qosd tried to create there would be
# created.
mkdir -m 1777 "$tmp/root"
printf '[Daemon]\nNoSuchKey=1\n' >"$tmp/root/qosd.conf"

rc=0
"${as_user[@]}" "$QOSD" --root "$tmp/root" --config "$tmp/root/qosd.conf" --no-bus \
        >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
[ "$rc" = 1 ] || { cat "$tmp/err" >&2; fail "qosd as uid $("${as_user[@]}" id -u) exited $rc, not 1"; }
[ ! -s "$tmp/out" ] || fail "qosd printed on stdout: $(cat "$tmp/out")"
want="qosd: must run as root (it changes the scheduling of every user's threads)"
[ "$(cat "$tmp/err")" = "$want" ] || { cat "$tmp/err" >&2; fail "stderr is not the one line: $want"; }
created=$(find "$tmp/root" -mindepth 1 ! -name qosd.conf)
[ -z "$created" ] || fail "qosd created $created"
echo "ok: refused with one line, nothing created, settings not read"

for opt in --help --version; do
        "${as_user[@]}" "$QOSD" "$opt" >"$tmp/out" 2>&1 || fail "qosd $opt as another user exited $?"
        grep -q qosd "$tmp/out" || fail "qosd $opt printed: $(cat "$tmp/out")"
done
echo "ok: --help and --version work for anyone"
