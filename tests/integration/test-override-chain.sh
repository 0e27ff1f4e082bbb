#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosd's view of loans, for an unprivileged process lending through it:
# a reload, a rename (rule re-evaluation) and SetThreadClass on a thread
# that holds a loan change its base and leave the loan on top, and the
# end brings the new base; qosctl explain shows base, loans (lender and
# class, the lock) and what the thread runs at; qosctl ps marks a
# user-class waiter stalled behind a lower class. Chains through qosd:
# BeginLockOverride lends on along locks the process's other loans named
# (two hops and more, in either order of the calls), 8 owners at most,
# and a cycle stops. Another user's threads are out of reach of a chain.
. "$(dirname "$0")/lib.sh"
require_root
: "${QOS_CHAIN_CLIENT:?}" "${QOS_OVERRIDE_CLIENT:?}" "${QOS_LIB:?}"

user=qos-t-chain
other=qos-t-chain2
make_user "$user"
make_user "$other"
start_dbus
qosd_root_init
cp "$QOS_CHAIN_CLIENT" "$QOSD_BIN/"
chmod -R a+rX "$QOSD_BIN"
prog="$QOSD_BIN/qos-chain-client"
# Steps wait on qosd and the kernel, not on a clock: room for a loaded machine.
WAIT_TIMEOUT=${WAIT_TIMEOUT:-30}
rules() { # class of lk-bg*
        write_rule chain "$prog" - lk-lender user-initiated "lk-bg*" "$1" "lk-ut*" utility
}
rules background
start_qosd

in_view=$(class_view user-initiated)
ut_view=$(class_view utility)
bg_view=$(class_view background)

# Clients as a user, each behind two FIFOs; ask talks to client $CUR.
declare -A W R P
client_start() { # name user [command...]
        local dir="$TEST_TMP/cl-$1" w r name=$1 as=$2
        shift 2
        mkdir -p "$dir"
        mkfifo "$dir/in" "$dir/out"
        runuser -u "$as" -- "${@:-$prog}" <"$dir/in" >"$dir/out" 2>>"$TEST_TMP/client.err" &
        set -- "$name"
        P[$1]=$!
        on_exit "kill ${P[$1]}"
        exec {w}>"$dir/in" {r}<"$dir/out"
        W[$1]=$w
        R[$1]=$r
        CUR=$1
}
ask() { # command... -> REPLY
        echo "$*" >&"${W[$CUR]}"
        read -r -t "$STARTUP_TIMEOUT" REPLY <&"${R[$CUR]}" || fail "no answer to '$*': $(cat "$TEST_TMP/client.err")"
}
spawn() { # name -> TID in REPLY
        ask spawn "$1"
}
begin() { # waiter owner lock -> ID in LOAN, the chain in CHAIN
        ask lock "$1" "$2" user-interactive "$3"
        read -r LOAN LENT CHAIN <<<"$REPLY"
        [[ $LOAN =~ ^[0-9]+$ ]] || fail "BeginLockOverride $*: $REPLY"
}
explain_line() { # tid key: the values of the key's lines
        "$QOSCTL" explain "$1" | awk -v k="$2" '{ key = substr($0, 1, 19); sub(/ +$/, "", key) } key == k { print substr($0, 21) }'
}
base_is() { explain_line "$1" base | grep "^$2 " >/dev/null; }

client_start main "$user"
ask self
lender=$REPLY
wait_view "$lender" "$in_view" "the lender by its rule"

# --- a reload while the loan lasts: the base changes, the loan stays ---
spawn lk-bg1
o1=$REPLY
wait_view "$o1" "$bg_view" "lk-bg1 by its rule"
begin "$lender" "$o1" 0x1000
assert_eq "$LENT" user-initiated "the lender lends its own class (not the one asked for)"
wait_view "$o1" "$in_view" "lk-bg1 raised by the loan"
rules utility
"$QOSCTL" reload >/dev/null || fail "reload"
sleep 0.5
assert_eq "$(kernel_view "$o1")" "$in_view" "the loan is still on top after the reload"
assert_contains "$(explain_line "$o1" base)" utility "explain: the base is the new rule's"
assert_contains "$(explain_line "$o1" loan)" "user-initiated from thread $lender (user-initiated of its own)" \
        "explain: who lent what"
assert_contains "$(explain_line "$o1" loan)" "lock 0x1000" "explain: through which lock"
assert_contains "$(explain_line "$o1" "runs at")" user-initiated "explain: what it runs at"
assert_contains "$(explain_line "$lender" "waits on")" "lock 0x1000 held by thread $o1 (base utility)" \
        "explain of the lender: the lock it waits on"
ps_row=$("$QOSCTL" ps -a -p "$(awk '/^Tgid:/ {print $2}' "/proc/$lender/status")" | awk -v t="$lender" '$2 == t')
assert_contains "$ps_row" "stalled:$o1" "ps: the user-initiated lender waits on a lower class"
ask end "$LOAN"
wait_view "$o1" "$ut_view" "the end brings the new base (utility), not the old"
assert_eq "$(explain_line "$o1" loan)" "" "explain after the end: no loan"
ok "reload under a loan: the base changes, the loan stays on top, the end restores the new base"

# --- a rename (rule re-evaluation) under a loan ------------------------
rules background
"$QOSCTL" reload >/dev/null || fail "reload"
spawn lk-bg2
o2=$REPLY
wait_view "$o2" "$bg_view" "lk-bg2 by its rule"
begin "$lender" "$o2" 0x2000
wait_view "$o2" "$in_view" "lk-bg2 raised"
ask rename "$o2" lk-ut2
wait_for base_is "$o2" utility || fail "the rename did not change the base: $("$QOSCTL" explain "$o2")"
assert_eq "$(kernel_view "$o2")" "$in_view" "the loan is still on top after the rename"
ask end "$LOAN"
wait_view "$o2" "$ut_view" "the end brings the renamed thread's class"
ok "rename under a loan: the rule's new class is the base, the loan stays until its end"

# --- SetThreadClass under a loan -----------------------------------------
spawn lk-bg3
o3=$REPLY
wait_view "$o3" "$bg_view" "lk-bg3 by its rule"
begin "$lender" "$o3" 0x3000
wait_view "$o3" "$in_view" "lk-bg3 raised"
ask set "$o3" utility
assert_eq "$REPLY" utility "SetThreadClass on the loaned thread is granted"
assert_eq "$(kernel_view "$o3")" "$in_view" "the loan is still on top after SetThreadClass"
assert_contains "$(explain_line "$o3" base)" utility "explain: the requested class is the base"
ask end "$LOAN"
wait_view "$o3" "$ut_view" "the end brings the requested class"
ok "SetThreadClass under a loan: the request is the base, the loan stays until its end"

# --- a chain of two hops, walked by qosd --------------------------------
spawn lk-bg4; a=$REPLY
spawn lk-bg5; b=$REPLY
spawn lk-bg6; c=$REPLY
for t in "$a" "$b" "$c"; do wait_view "$t" "$bg_view" "chain thread $t by its rule"; done
# b sleeps on lock 0x60 held by c, a on 0x50 held by b: background lent
# to background changes nothing, but qosd learns where they wait.
begin "$b" "$c" 0x60; e_bc=$LOAN
begin "$a" "$b" 0x50; e_ab=$LOAN
assert_eq "$CHAIN" "$c" "a's loan goes on to c"
for t in "$a" "$b" "$c"; do assert_eq "$(kernel_view "$t")" "$bg_view" "background lends nothing ($t)"; done
begin "$lender" "$a" 0x40; top=$LOAN
assert_eq "$CHAIN" "$b $c" "the lender's loan goes on to b and c"
for t in "$a" "$b" "$c"; do wait_view "$t" "$in_view" "chain hop $t raised"; done
assert_contains "$(explain_line "$c" loan)" "user-initiated from thread $lender" "explain of the last hop: the lender"
assert_contains "$("$QOSCTL" explain "$c")" "thread $b waits on lock 0x60 held by this one" \
        "explain of the last hop: along which lock"
# b stops waiting for c: c falls back, a and b keep the loan.
ask end "$e_bc"
wait_view "$c" "$bg_view" "c once b no longer waits on it"
assert_eq "$(kernel_view "$b")" "$in_view" "b keeps the loan"
# b waits for c again, after the lender's loan began: the chain grows.
begin "$b" "$c" 0x61; e_bc=$LOAN
wait_view "$c" "$in_view" "c raised again through a wait noted later"
ask end "$top"
for t in "$a" "$b" "$c"; do wait_view "$t" "$bg_view" "chain hop $t after the lender's end"; done
ask end "$e_ab"
ask end "$e_bc"
ok "a chain of two hops through qosd, in either order; its end and a hop's end restore"

# --- the bound of 8, and a cycle ----------------------------------------
ids=()
tids=()
for i in 0 1 2 3 4 5 6 7 8 9; do
        spawn "lk-bgc$i"
        tids+=("$REPLY")
done
for i in 0 1 2 3 4 5 6 7 8; do
        begin "${tids[i]}" "${tids[i + 1]}" "$((0x100 + i))"
        ids+=("$LOAN")
done
begin "${tids[9]}" "${tids[0]}" 0x109   # the last waits on the first: a cycle
ids+=("$LOAN")
begin "$lender" "${tids[0]}" 0x1ff
top=$LOAN
assert_eq "$(wc -w <<<"$CHAIN")" 7 "the chain stops at 8 owners: $CHAIN"
assert_eq "$CHAIN" "${tids[*]:1:7}" "the 7 further owners, in order"
wait_view "${tids[7]}" "$in_view" "the 8th owner is raised"
assert_eq "$(kernel_view "${tids[8]}")" "$bg_view" "the 9th is not"
assert_eq "$(kernel_view "${tids[9]}")" "$bg_view" "nor the 10th"
ask end "$top"
for i in 0 7; do wait_view "${tids[i]}" "$bg_view" "after the end, owner $i"; done
# A short cycle: x0 -> x1 -> x2 -> x0; lending to x0 reaches x1 and x2 and stops.
spawn lk-bgx0; x0=$REPLY
spawn lk-bgx1; x1=$REPLY
spawn lk-bgx2; x2=$REPLY
begin "$x0" "$x1" 0x200; ids+=("$LOAN")
begin "$x1" "$x2" 0x201; ids+=("$LOAN")
begin "$x2" "$x0" 0x202; ids+=("$LOAN")
begin "$lender" "$x0" 0x203
assert_eq "$CHAIN" "$x1 $x2" "a cycle stops where it closes"
wait_view "$x2" "$in_view" "the cycle's last owner is raised"
ask end "$LOAN"
for id in "${ids[@]}"; do ask end "$id"; assert_eq "$REPLY" ended "ending chain edge $id"; done
"$QOSCTL" status >/dev/null || fail "qosd answers after the cycles"
ok "a chain of 10 stops at 8 owners, a cycle stops where it closes, qosd keeps answering"

# --- qos_mutex_t through qosd: one call for a chain qosd knows ----------
# C (background) holds L2, B (utility) holds L1 and waits on L2 (lending
# utility to C, naming L2), A (user-initiated) waits on L1: libqos names L1
# with its loan to B, qosd lends on to C, and libqos makes no call of its
# own for C - two overrides in qosd, not three.
copy_for_user "$QOS_LIB" "$QOS_OVERRIDE_CLIENT"
client_start mutex "$user" env LD_LIBRARY_PATH="$TEST_TMP/lib" "$TEST_TMP/bin/qos-override-client" chain
read -r -t "$STARTUP_TIMEOUT" step mc mb <&"${R[mutex]}" || fail "the mutex client did not start: $(cat "$TEST_TMP/client.err")"
assert_eq "$step" chain "the mutex client's first step"
wait_active 1 "B's loan to C"
wait_view "$mc" "$ut_view" "C raised by B"
ask
assert_contains "$REPLY" waiting "the mutex client's second step"
wait_active 2 "A's loan to B"
wait_view "$mb" "$in_view" "B raised by A"
wait_view "$mc" "$in_view" "C raised along the chain qosd walked"
sleep 0.5
assert_eq "$(active)" 2 "libqos made no call of its own for C"
ask
assert_contains "$REPLY" released "the mutex client's last step"
wait_active 0 "after every unlock"
echo >&"${W[mutex]}"
wait "${P[mutex]}" 2>/dev/null || true
CUR=main
ok "qos_mutex_t: a chain of two hops in one call, qosd lends on to the last owner"

# --- another user's threads: out of reach ------------------------------
# The victim's two background threads: ob2 waits on a lock ob holds (a
# wait qosd knows, which raises nothing). The attacker names them in every
# role it can; ob and ob2 must stay at background.
client_start other "$other"
spawn lk-bgo1
ob=$REPLY
spawn lk-bgo2
ob2=$REPLY
wait_view "$ob" "$bg_view" "the other user's thread by its rule"
begin "$ob2" "$ob" 0x300
oid=$LOAN
CUR=main
spawn lk-bg7
t7=$REPLY
declare -A tried=()
attempts=0 escalations=0
attempt() { # row expected-reply command...
        local row=$1 want=$2
        shift 2
        ask "$@"
        tried[$row]=$(( ${tried[$row]:-0} + 1 ))
        attempts=$((attempts + 1))
        if [ "$REPLY" != "$want" ] || ! view_is "$ob" "$bg_view" || ! view_is "$ob2" "$bg_view"; then
                escalations=$((escalations + 1))
                echo "escalation: '$*' answered '$REPLY', want '$want'" >&2
        fi
}
row="chains toward another user's threads (a loan to theirs, theirs named as waiter or as lock holder, a chain from a lock of theirs)"
deny=org.freedesktop.DBus.Error.AccessDenied
attempt "$row" "$deny" lock "$lender" "$ob" user-initiated 0x300
attempt "$row" "$deny" lock "$ob" "$t7" background 0x301
attempt "$row" "$deny" lock "$t7" "$ob2" background 0x300
# The attacker's own wait on the victim's lock address (t7 on 0x300, held
# by its own t8): the chain goes to t8 and no further, whatever the victim
# waits on at that address.
spawn lk-bg8
t8=$REPLY
begin "$t7" "$t8" 0x300
t7id=$LOAN
ask lock "$lender" "$t7" user-initiated 0x302
read -r LOAN _ CHAIN <<<"$REPLY"
tried[$row]=$(( ${tried[$row]} + 1 ))
attempts=$((attempts + 1))
if [ "$CHAIN" != "$t8" ] || ! view_is "$ob" "$bg_view" || ! view_is "$ob2" "$bg_view"; then
        escalations=$((escalations + 1))
        echo "escalation: the chain went '$CHAIN', not only to $t8" >&2
fi
ask end "$LOAN"
ask end "$t7id"
attack_table escalations "$escalations"
assert_eq "$("$QOSCTL" explain "$ob" | grep -c "^loan ")" 1 "the other user's thread has its own user's loan only"
assert_contains "$(explain_line "$ob" loan)" "from thread $ob2" "and that loan is its own user's"
echo quit >&"${W[$CUR]}"
CUR=other
ask end "$oid"
assert_eq "$REPLY" ended "the other user ends its loan"
echo quit >&"${W[$CUR]}"
wait "${P[main]}" "${P[other]}" 2>/dev/null || true
wait_active 0 "after both clients went"
ok "a chain never reaches another user's threads"
stop_qosd
