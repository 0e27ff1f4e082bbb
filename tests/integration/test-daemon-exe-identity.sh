#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# An Executable= full path names a file, not a string: a user who mounts a
# file system over the rule's directory in mount and user namespaces of
# their own runs their own program under the rule's path, and gets nothing
# of the rule (as in qos.d(5)); the real file, run from another mount
# namespace as sandboxes do, still matches; a basename rule is anyone's.
. "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

user=qos-t-exeid
make_user "$user"
APP=$(test_program qos-app-in)
NAMED=$(test_program qos-app-named)
write_rule app-in "$APP" user-initiated
write_rule app-named qos-app-named background
# The user's own program, to be put at the rule's path.
mkdir -p "$TEST_TMP/fake"
cp "$QOS_TEST_THREADS" "$TEST_TMP/fake/qos-fake"
chmod -R a+rX "$TEST_TMP/fake"
UIN=$(class_view user-initiated)
UT=$(class_view utility)
BG=$(class_view background)
start_qosd

if ! setpriv --reuid="$user" --regid="$user" --clear-groups unshare -Urm true 2>/dev/null; then
        echo "SKIP: $TEST_NAME: this kernel gives users no user and mount namespaces"
        exit 77
fi

# setpriv, unshare and sh exec in place: $! is the program's PID.
as_user=(setpriv --reuid="$user" --regid="$user" --clear-groups)
"${as_user[@]}" unshare -Urm sh -c 'mount -t tmpfs tmpfs "$1" && cp "$2" "$1/qos-app-in" && exec "$1/qos-app-in" spoof' \
        sh "$QOSD_BIN" "$TEST_TMP/fake/qos-fake" >/dev/null &
spoof=$!
on_exit "kill $spoof"
"${as_user[@]}" "$APP" real >/dev/null &
real=$!
on_exit "kill $real"
wait_view "$real" "$UIN" "the user runs the rule's program"
wait_for grep -qx qos-app-in "/proc/$spoof/comm" || fail "the user's program did not start"
[ "$(readlink "/proc/$spoof/exe")" = "$APP" ] || fail "the kernel shows another path: $(readlink "/proc/$spoof/exe")"
assert_eq "$(kernel_view "$spoof")" "$UT" "the user's own program under the rule's path, in their namespace"
assert_contains "$("$QOSCTL" explain "$spoof")" "not managing this thread" "explain: no rule for it"
ok "a full path in another mount namespace names the file qosd sees there, or nothing"

unshare -m "$APP" sandboxed >/dev/null &
boxed=$!
on_exit "kill $boxed"
wait_view "$boxed" "$UIN" "the rule's own file, from another mount namespace"
ok "the same file from another mount namespace still matches"

"${as_user[@]}" unshare -Urm sh -c 'mount -t tmpfs tmpfs "$1" && cp "$2" "$1/qos-app-named" && exec "$1/qos-app-named" x' \
        sh "$QOSD_BIN" "$TEST_TMP/fake/qos-fake" >/dev/null &
named=$!
on_exit "kill $named"
wait_view "$named" "$BG" "a basename rule matches the name, wherever the file is"
ok "a basename rule is the name's, in any namespace"
