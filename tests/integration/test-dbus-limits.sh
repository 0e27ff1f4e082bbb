#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The read-only methods anyone may call (Explain, ListTasks), on a real bus
# with real users. What another user's thread shows: no executable, command
# line, cgroup, timer slack or verdict from the owner's own rule file,
# while the owner and root see them. A flood of both calls from one user
# on several connections: answered RateLimited (counted in qosctl status),
# while qosd still classes another user's new process, answers that user's
# Explain, and keeps its memory. A ListTasks longer than ListTasksMax=
# ends with the "truncated" row. The attempts are counted: the test prints
# "N attempts tried, 0 disclosures" and fails on any disclosure.
source "$(dirname "$0")/lib.sh"
require_root
: "${QOS_BUS_FLOOD:?QOS_BUS_FLOOD must point at qos-bus-flood}"

mallory=qos-t-lmflood
owner=qos-t-lmowner
make_user "$mallory"
# The owner has a home: its own rule file is one of the things hidden.
home=$TEST_TMP/home
make_user "$owner" "$home"
[ "$(id -u "$owner")" -ge 1000 ] || fail "test user got a system uid"

start_dbus
qosd_root_init
# The owner's rules only, not those of the machine's other accounts.
printf '[Daemon]\nUserRules=yes\nUserRulesMinUid=%s\n' "$(id -u "$owner")" >"$QOSD_ROOT/etc/qos/qosd.conf"
SECRET=$(test_program qos-lim-secretexe)
OWNRULE=$(test_program qos-lim-ownrule)
write_rule lim-admin "$SECRET" background
udir=$home/$owner/.config/qos/apps.d
runuser -u "$owner" -- mkdir -p "$udir"
runuser -u "$owner" -- sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' '$OWNRULE' >'$udir/private.conf'"
CTL=$(user_runnable "$QOSCTL")
BG=$(class_view background)
start_qosd

as() { # user command...
        local u=$1
        shift
        runuser -u "$u" -- "$@"
}

attempts=0 disclosures=0
declare -A tried
# withheld ROW OUTPUT SECRET...: none of the secrets may be in the output.
withheld() {
        local row=$1 out=$2 s
        shift 2
        for s in "$@"; do
                attempts=$((attempts + 1))
                tried[$row]=$((${tried[$row]:-0} + 1))
                case "$out" in
                *"$s"*)
                        disclosures=$((disclosures + 1))
                        fail "$row: '$s' disclosed: $out"
                        ;;
                esac
        done
}

line_is() { # output key value message
        printf '%s\n' "$1" | grep -xF "$(printf '%-19s %s' "$2" "$3")" >/dev/null ||
                fail "$4: no line '$2 $3' in: $1"
}

# --- what another user's thread shows ------------------------------------

AS_USER=$owner THREADS_BIN=$SECRET start_threads vmain
vt=$(tid_of vmain)
wait_view "$vt" "$BG" "the admin rule classes the owner's program"
vp=$(awk '$1 == "Tgid:" { print $2 }' "/proc/$vt/status")
# The cgroup explain shows: the unified (v2) one, "0::PATH".
vcg=$(sed -n "s/^0:://p" "/proc/$vp/cgroup")
THREADS_BIN=$SECRET start_threads rmain
rt=$(tid_of rmain)
wait_view "$rt" "$BG" "the admin rule classes root's program"
rcg=$(sed -n "s/^0:://p" "/proc/$THREADS_PID/cgroup")
AS_USER=$owner THREADS_BIN=$OWNRULE start_threads omain
ot=$(tid_of omain)
wait_view "$ot" "$BG" "the owner's own rule classes its program"

for target in "$vt owner" "$rt root"; do
        read -r t who <<<"$target"
        set -- "$t" "$who"
        out=$(as "$mallory" "$CTL" explain "$1")
        line_is "$out" "command line" "hidden: not your process" "explain $2's thread as another user"
        line_is "$out" cgroup "hidden: not your process" "explain $2's thread as another user"
        assert_contains "$out" "executable hidden: not your process" "explain $2's thread as another user"
        assert_contains "$out" "timer-slack=hidden" "explain $2's thread as another user"
        # The admin's rule is public: its verdict stays.
        assert_contains "$out" "thread verdict      background from $QOSD_ROOT/etc/qos/apps.d/lim-admin.conf" \
                "the admin's verdict on $2's thread"
        cg=$vcg
        [ "$2" = root ] && cg=$rcg
        withheld "Explain on another user's thread, and root's (exe, command line, cgroup)" "$out" "$SECRET" \
                "cgroup              $cg"
done
ok "Explain as another user: executable, command line, cgroup and timer slack hidden"

out=$(as "$mallory" "$CTL" explain "$ot")
withheld "Explain on another user's thread (the owner's own rule file)" "$out" "$udir" "private.conf"
line_is "$out" "thread verdict" "a user rule (hidden: not your process)" "the verdict from the owner's own file"
line_is "$out" "origin" "a user rule (hidden: not your process)" "the origin in the owner's own file"
ok "Explain as another user: a verdict from the owner's own rule file hidden"

for viewer in "$owner" root; do
        out=$(as "$viewer" "$CTL" explain "$vt")
        line_is "$out" "command line" "$SECRET vmain" "explain as $viewer"
        line_is "$out" cgroup "$vcg" "explain as $viewer"
        assert_contains "$out" "$SECRET" "explain as $viewer"
        case "$out" in *hidden*) fail "explain as $viewer hides something: $out" ;; esac
        out=$(as "$viewer" "$CTL" explain "$ot")
        assert_contains "$out" "$udir/private.conf" "the owner's own verdict as $viewer"
done
ok "the owner and root see all of it"

# ps: what /proc shows anyone, nothing more.
row() { # user tid
        as "$1" "$CTL" ps -a | awk -v t="$2" '$2 == t'
}
out=$(row "$mallory" "$ot")
assert_contains "$out" "hidden: not your process" "ps as another user: the owner's own rule"
assert_contains "$out" "timer-slack=hidden" "ps as another user: timer slack"
withheld "ListTasks(all) as another user (own rule file, timer slack)" "$out" "$udir" "timer-slack=1" "timer-slack=5"
out=$(row "$mallory" "$vt")
assert_contains "$out" "lim-admin.conf" "ps as another user: the admin's rule"
assert_contains "$out" " vmain " "ps as another user: comm, as /proc shows it"
out=$(row "$owner" "$ot")
assert_contains "$out" "$udir/private.conf" "ps as the owner"
case "$out" in *hidden*) fail "ps as the owner hides something: $out" ;; esac
ok "ps -a as another user: comm and class as /proc shows them, the rest hidden"

# --- a flood -------------------------------------------------------------

rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$QOSD_PID/status"; }
limited() { qosd_status QueriesRateLimited; }
rss_before=$(rss)
limited_before=$(limited)

as "$owner" "$CTL" explain "$vt" >/dev/null || fail "explain as the owner before the flood"
flood_start=$SECONDS
# Eight connections: six explain the owner's thread, two list every thread.
for i in 1 2 3; do
        flood_as "$mallory" "$i" 2 explain "$vt"
done
flood_as "$mallory" 4 2 list-all
on_exit stop_floods
WAIT_TIMEOUT=60 wait_for status_above QueriesRateLimited $((limited_before + 1000)) ||
        fail "the flood was not rate limited: QueriesRateLimited $(limited)"

# During the flood: another user's new process gets its class, and that
# user's Explain answers (within the usual waits of these tests).
limited_during=$(limited)
AS_USER=$owner THREADS_BIN=$SECRET start_threads during
wait_view "$(tid_of during)" "$BG" "a new process of another user during the flood"
out=$(as "$owner" "$CTL" explain "$(tid_of during)") || fail "another user's explain during the flood: $out"
line_is "$out" "command line" "$SECRET during" "another user's explain during the flood"
# Its own calls compete with its flood for the same tokens. (A new
# connection may find one: qosd asks the bus who it is, and the bucket
# refills meanwhile; ListTasks refills slowly enough to be all but empty.)
for i in 1 2 3 4 5; do
        out=$(as "$mallory" "$CTL" ps -a 2>&1) || break
done
assert_contains "$out" "Too many ListTasks calls from uid $(id -u "$mallory")" "the flooding user's ps"
"$QOSCTL" ps -a >/dev/null 2>&1 || fail "root's ps -a during the flood"
for p in "${FLOODS[@]}"; do
        kill -0 "$p" 2>/dev/null || fail "a flood ended by itself: $(cat "$TEST_TMP"/flood.*)"
done
[ "$(limited)" -gt "$limited_during" ] || fail "the flood paused while the others were served"
ok "during the flood: another user's process classed, its explain answered, root's ps works"

# Thousands of calls, not a few.
WAIT_TIMEOUT=120 wait_for status_above QueriesRateLimited $((limited_before + 5000)) ||
        fail "the flood did not reach 5000 calls: QueriesRateLimited $(limited)"
stop_floods
elapsed=$((SECONDS - flood_start + 1))
total=0 explained=0
for i in 1 2 3 4; do
        read -r _ okn _ lim _ other rest <"$TEST_TMP/flood.$i" || fail "flood $i printed nothing"
        what=Explain
        [ "$i" = 4 ] && what=ListTasks
        assert_contains "$(cat "$TEST_TMP/flood.$i")" "limited: Too many $what calls from uid $(id -u "$mallory")" \
                "flood $i: the error"
        [ "$other" = 0 ] || fail "flood $i: other errors: $(cat "$TEST_TMP/flood.$i")"
        [ "$lim" -ge 1 ] || fail "flood $i: not limited: $(cat "$TEST_TMP/flood.$i")"
        total=$((total + okn + lim))
        if [ "$i" = 4 ]; then
                list_calls=$((okn + lim))
                attempts=$((attempts + okn + lim))
                tried["ListTasks(all) flood (one user, 2 connections)"]=$((okn + lim))
                # The burst and what the rate gave since, no more.
                [ "$okn" -le $((10 + 2 * elapsed)) ] || fail "ListTasks: $okn answered in ${elapsed}s"
        else
                explained=$((explained + okn))
                attempts=$((attempts + okn + lim))
                tried["Explain flood (one user, 6 connections)"]=$((${tried["Explain flood (one user, 6 connections)"]:-0} + okn + lim))
        fi
done
[ "$explained" -le $((100 + 20 * elapsed)) ] || fail "Explain: $explained answered in ${elapsed}s"
echo "# flood: $total calls ($list_calls ListTasks), $(limited) answered RateLimited in all"
rss_after=$(rss)
echo "# qosd VmRSS: $rss_before kB before the flood, $rss_after kB after"
memory="memory bounded"
if qosd_has_asan; then
        memory="memory not measured (the sanitizer keeps freed memory in its quarantine)"
else
        [ $((rss_after - rss_before)) -lt 16384 ] || fail "qosd grew by $((rss_after - rss_before)) kB in the flood"
fi
wait_for as "$mallory" "$CTL" explain "$vt" || fail "the flooding user was not served again after the flood"
ok "the flood: RateLimited, counted in qosctl status, $memory, served again after it"

# --- a long list ends with the "truncated" row --------------------------

stop_qosd TERM
echo ListTasksMax=64 >>"$QOSD_ROOT/etc/qos/qosd.conf"
start_qosd
"$QOSCTL" ps -a >"$TEST_TMP/ps.out" 2>"$TEST_TMP/ps.err"
assert_eq "$(wc -l <"$TEST_TMP/ps.out")" 65 "ps -a with ListTasksMax=64: the header and 64 threads"
assert_contains "$(cat "$TEST_TMP/ps.err")" "incomplete list: qosd says the list stops at 64 threads" \
        "ps -a says the list is cut"
ok "ListTasks stops at ListTasksMax= and says so"

attack_table disclosures "$disclosures"
stop_qosd TERM
