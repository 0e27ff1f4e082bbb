#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What one user can learn of another's files through qosd (issue 36).
# F4: links in a user's rule directory. A link through /proc/PID/cwd
# into another user's mode-700 home, and a link or a whole directory out
# of the user's home, are not followed: the attacker's programs do not get
# the class of the victim's file, and the refusal reads the same whether
# the target exists or not. A link that stays in the home (a dotfile
# manager's) is followed, and a link to /dev/null still masks.
# F5: another user's thread, in `qosctl explain` and `qosctl ps -a`, and
# `qosctl status`, show nothing of its owner's files (path, line, what a
# file says); the owner and root see all of it.
source "$(dirname "$0")/lib.sh"
require_root
source "$(dirname "$0")/lib-client.sh"
qosd_root_init
printf '[Daemon]\nUserRules=yes\nUserRulesReloadIntervalSec=1\n' >"$QOSD_ROOT/etc/qos/qosd.conf"

alice=qos-pva$$ # the victim, and the owner of the private files
bob=qos-pvb$$   # the attacker, and the other user looking
mallory=qos-pvm$$
home=$TEST_TMP/home
for u in "$alice" "$bob" "$mallory"; do
        make_user "$u" "$home"
done
client_setup
as() { runuser -u "$1" -- "${@:2}"; }
qosctl_as() { runuser -u "$1" -- env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" "$TEST_TMP/bin/qosctl" "${@:2}"; }
rule() { # exe class [maxclass]
        printf '[Match]\nExecutable=%s\n\n[Process]\nClass=%s\n' "$1" "$2"
        [ -z "${3:-}" ] || printf '\n[Limits]\nMaxClass=%s\n' "$3"
}

SECRET=$(test_program qos-pv-secret)
SECRET2=$(test_program qos-pv-secret2)
OUT=$(test_program qos-pv-out)
DOT=$(test_program qos-pv-dot)
REL=$(test_program qos-pv-rel)
MASKED=$(test_program qos-pv-masked)
PRIV=$(test_program qos-pv-priv)
REQ=$QOSD_BIN/qos-pv-req
cp "$QOS_LIB_CLIENT" "$REQ"
chmod a+rx "$REQ"

# --- alice: a home only she can enter, a project directory in it that
# anyone could read if they could get there, her secret rules in it, and
# a process of hers working in it (its cwd the way in).
ahome=$home/$alice
chmod 700 "$ahome"
as "$alice" mkdir -p "$ahome/proj/apps.d" "$ahome/.config/qos/apps.d"
chmod 755 "$ahome/proj" "$ahome/proj/apps.d"
as "$alice" sh -c "$(declare -f rule); rule '$SECRET' background >'$ahome/proj/secret.conf'"
as "$alice" sh -c "$(declare -f rule); rule '$SECRET2' background >'$ahome/proj/apps.d/secret2.conf'"
chmod 644 "$ahome/proj/secret.conf" "$ahome/proj/apps.d/secret2.conf"
runuser -u nobody -- test -r "$ahome/proj/secret.conf" && fail "alice's home is open to others"
setpriv --reuid="$alice" --regid="$alice" --init-groups sh -c "cd '$ahome/proj' && exec sleep 600" &
victim=$!
on_exit "kill $victim"
in_proj() { [ "$(readlink "/proc/$victim/cwd")" = "$ahome/proj" ]; }
wait_for in_proj || fail "alice's process did not start"
# Her private rules: one capped by her own MaxClass, one only capping (for
# the request below), one broken.
audir=$ahome/.config/qos/apps.d
as "$alice" sh -c "$(declare -f rule); rule '$PRIV' user-initiated background >'$audir/alice-priv.conf'"
as "$alice" sh -c "printf '[Match]\nExecutable=%s\n\n[Limits]\nMaxClass=utility\n' '$REQ' >'$audir/alice-req.conf'"
as "$alice" sh -c "printf '[Process]\nClass=no-such-class\n' >'$audir/alice-broken.conf'"

# --- bob: links to alice's files through /proc, one to a file that
# exists and one to a file that does not; a link out of his home; links
# within it (absolute and relative, as dotfile managers make them); a
# mask of a system file.
bhome=$home/$bob
budir=$bhome/.config/qos/apps.d
as "$bob" mkdir -p "$budir" "$bhome/dotfiles"
as "$bob" ln -s "/proc/$victim/cwd/secret.conf" "$budir/leak.conf"
as "$bob" ln -s "/proc/$victim/cwd/no-such.conf" "$budir/probe.conf"
mkdir -p "$TEST_TMP/public"
rule "$OUT" background >"$TEST_TMP/public/out.conf"
chmod -R a+rX "$TEST_TMP/public"
as "$bob" ln -s "$TEST_TMP/public/out.conf" "$budir/out.conf"
as "$bob" sh -c "$(declare -f rule); rule '$DOT' background >'$bhome/dotfiles/dot.conf'"
as "$bob" sh -c "$(declare -f rule); rule '$REL' background >'$bhome/dotfiles/rel.conf'"
as "$bob" ln -s "$bhome/dotfiles/dot.conf" "$budir/dot.conf"
as "$bob" ln -s ../../../dotfiles/rel.conf "$budir/rel.conf"
write_rule masked "$MASKED" background
as "$bob" ln -s /dev/null "$budir/masked.conf"

# --- mallory: her whole rule directory is a link through /proc.
as "$mallory" mkdir -p "$home/$mallory/.config/qos"
as "$mallory" ln -s "/proc/$victim/cwd/apps.d" "$home/$mallory/.config/qos/apps.d"

bg=$(class_view background)
def=$(class_view utility)

start_dbus
start_qosd

# The programs whose rules must not load first, then those whose rules
# do: once these have their class, qosd has handled the others too.
AS_USER=$bob THREADS_BIN=$SECRET start_threads s
secret_tid=$(tid_of s)
AS_USER=$mallory THREADS_BIN=$SECRET2 start_threads s
secret2_tid=$(tid_of s)
AS_USER=$bob THREADS_BIN=$OUT start_threads o
out_tid=$(tid_of o)
AS_USER=$bob THREADS_BIN=$MASKED start_threads k
masked_tid=$(tid_of k)
AS_USER=$bob THREADS_BIN=$DOT start_threads d
wait_view "$(tid_of d)" "$bg" "bob's absolute link within his home"
AS_USER=$bob THREADS_BIN=$REL start_threads r
wait_view "$(tid_of r)" "$bg" "bob's relative link within his home"
ok "links that stay in the user's home are followed"
assert_eq "$(kernel_view "$masked_tid")" "$def" "bob's link to /dev/null masks the system rule for him"
ok "a link to /dev/null in a user's directory still masks"

# F4: none of the links out of the home gives its rule.
assert_eq "$(kernel_view "$secret_tid")" "$def" "bob's link through /proc/$victim/cwd gives alice's secret rule"
assert_eq "$(kernel_view "$secret2_tid")" "$def" "mallory's directory through /proc/$victim/cwd gives alice's rules"
assert_eq "$(kernel_view "$out_tid")" "$def" "bob's link out of his home is followed"
ok "links through /proc and out of the home are not followed"

# No oracle: the refusal of a link to a file that exists reads as that of
# one to a file that does not, and says what was refused.
said() { # file: why the log says it was not read, without its name
        { grep -F "/$1:0: cannot" "$QOSD_LOG" || true; } | tail -n 1 | sed "s|.*/$1:0: ||"
}
leak=$(said leak.conf)
probe=$(said probe.conf)
out=$(said out.conf)
[ -n "$leak" ] || fail "the refusal of leak.conf is not in the log"
assert_eq "$leak" "$probe" "the refusal of a link to an existing file and to a missing one"
assert_eq "$out" "$leak" "the refusal of a link out of the home"
assert_contains "$leak" "home directory" "the refusal says why"
about_homes=$(grep -F "$home/" "$QOSD_LOG" || true)
case "$about_homes" in
*"No such file"* | *"Permission denied"*) fail "the log tells whether a target exists: $about_homes" ;;
esac
grep -F "$home/$mallory/.config/qos/apps.d" "$QOSD_LOG" | grep -F "home directory" >/dev/null ||
        fail "the refusal of mallory's directory is not in the log"
ok "the refusals give no existence oracle, and say why: $leak"

# --- F5: alice's threads, as bob sees them.
AS_USER=$alice THREADS_BIN=$PRIV start_threads a
priv_tid=$(tid_of a)
wait_view "$priv_tid" "$bg" "alice's own rule, capped by her own MaxClass"
# shellcheck disable=SC2034 # client_start's bus
bus=$DBUS_SYSTEM_BUS_ADDRESS
CLIENT_BIN=$REQ client_start "$alice"
expect "self-set user-initiated 0" held
req_tid=$MAIN

mine=$(qosctl_as "$alice" explain "$priv_tid")
assert_contains "$mine" "$audir/alice-priv.conf" "alice's explain of her own thread names her file"
assert_contains "$(qosctl_as "$alice" explain "$req_tid")" "$audir/alice-req.conf" \
        "alice's explain of her own request names her file"
assert_contains "$("$QOSCTL" explain "$priv_tid")" "$audir/alice-priv.conf" "root's explain names alice's file"

private_in() { # text what
        case "$1" in
        *"$ahome"* | *alice-priv* | *alice-req* | *alice-broken*) fail "$2 shows alice's files: $1" ;;
        esac
}
for t in "$priv_tid" "$req_tid"; do
        theirs=$(qosctl_as "$bob" explain "$t")
        private_in "$theirs" "bob's qosctl explain of alice's thread $t"
        assert_contains "$theirs" "a user rule" "bob's explain says a user rule applied"
done
private_in "$(qosctl_as "$bob" ps -a)" "bob's qosctl ps -a"
private_in "$(qosctl_as "$bob" ps -a -p "$req_tid")" "bob's qosctl ps -p of alice's request"
ok "another user's explain and ps show that a user rule applied, not which file, line or limit"

# LastReloadMessage: each user sees the system's messages and their own;
# root all of them.
bob_status=$(qosctl_as "$bob" status)
private_in "$bob_status" "bob's qosctl status"
assert_contains "$bob_status" "leak.conf" "bob's status reports his refused link"
alice_status=$(qosctl_as "$alice" status)
assert_contains "$alice_status" "alice-broken.conf" "alice's status reports her broken file"
case "$alice_status" in
*"$bhome"* | *leak.conf* | *"$home/$mallory"*) fail "alice's status shows other users' files: $alice_status" ;;
esac
root_status=$("$QOSCTL" status)
assert_contains "$root_status" "alice-broken.conf" "root's status: alice's file"
assert_contains "$root_status" "leak.conf" "root's status: bob's file"
rules_of() { "$@" status | awk '$1 == "RulesLoaded" { print $2 }'; }
[ "$(rules_of qosctl_as "$bob")" -lt "$(rules_of "$QOSCTL")" ] ||
        fail "bob's RulesLoaded counts alice's rules: $(rules_of qosctl_as "$bob") of $(rules_of "$QOSCTL")"
ok "qosctl status shows each user only their own files' messages and rules, root all"

# A link added while qosd runs: refused at bob's own reload, and said to him.
as "$bob" ln -s "/proc/$victim/cwd/secret.conf" "$budir/late.conf"
told_bob() { qosctl_as "$bob" status | grep -F "late.conf:0: cannot read: a symbolic link out of" >/dev/null; }
wait_for told_bob || fail "bob's status does not report the link he added: $(qosctl_as "$bob" status)"
case "$(qosctl_as "$alice" status)" in
*late.conf*) fail "alice's status shows bob's new link" ;;
esac
AS_USER=$bob THREADS_BIN=$SECRET start_threads s
sleep 0.3
assert_eq "$(kernel_view "$(tid_of s)")" "$def" "bob's link added later gives alice's secret rule"
ok "a link added later is refused at the user's reload and reported to that user alone"

# When another user edits their rules is theirs to know: UserReloads
# counts the reader's own reloads, root's all.
reloads_of() { "$@" status | awk '$1 == "UserReloads" { print $2 }'; }
[ "$(reloads_of qosctl_as "$bob")" -ge 1 ] || fail "bob's UserReloads does not count his reload"
assert_eq "$(reloads_of qosctl_as "$alice")" 0 "alice's UserReloads, after bob's reload"
[ "$(reloads_of "$QOSCTL")" -ge "$(reloads_of qosctl_as "$bob")" ] || fail "root's UserReloads is below bob's"
ok "UserReloads: each user counts their own reloads, root all"
client_stop
stop_qosd
