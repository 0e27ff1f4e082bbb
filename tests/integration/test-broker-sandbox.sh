#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The broker for programs in sandboxes: a libqos program in a PID namespace
# of its own, as bubblewrap and Flatpak run apps, asks for user-initiated
# for itself and gets it (nice -5), the same as outside; so does one in a
# user namespace too (unprivileged bwrap). It lends its class between its
# own threads (BeginOverride, as the preload does). And whatever number it
# sends, it reaches no task outside its own process: SetThreadClass for
# every host TID from 1 to 64 with its real start time is refused, and
# those tasks are unchanged.
. "$(dirname "$0")/lib.sh"
require_root
. "$(dirname "$0")/lib-client.sh"
command -v bwrap >/dev/null || fail "bwrap is missing (scripts/install-deps.sh --group test installs bubblewrap)"
: "${QOS_BUS_CALLER:?QOS_BUS_CALLER must point at qos-bus-caller}"

alice=qos-t-sbalice
make_user "$alice"
client_setup
cp "$QOS_BUS_CALLER" "$TEST_TMP/bin/"
chmod a+rx "$TEST_TMP/bin/qos-bus-caller"
UIN=$(class_view user-initiated)
UT=$(class_view utility)

start_dbus
bus=$DBUS_SYSTEM_BUS_ADDRESS
socket=${bus#unix:path=}
qosd_root_init
# As the issue that found it: the gate open, so only the sandbox differs.
printf 'ForegroundGate=no\n' >>"$QOSD_ROOT/etc/qos/qosd.conf"
start_qosd

# An unprivileged sandbox: bwrap makes a user and a PID namespace, with
# its own /proc, the rest of the file system as it is.
BWRAP=(bwrap --unshare-user --unshare-pid --die-with-parent --dev-bind / / --proc /proc --)
# A PID namespace without a user namespace: made by root, entered as alice.
PIDNS=(unshare --pid --fork --mount-proc setpriv --reuid="$alice" --regid="$alice" --init-groups --)

# The host TID of the thread NS_TID of process HOST_PID (NSpid's last field).
host_tid() { # host-pid ns-tid
        local t
        for t in /proc/"$1"/task/*; do
                [ "$(awk '$1 == "NSpid:" { print $NF }' "$t/status")" = "$2" ] && { echo "${t##*/}"; return 0; }
        done
        return 1
}
newest() { pgrep -n -u "$alice" -x "$1"; }

# "policy nice" of every host task 1..64, to see that none changed.
low_tasks() {
        local t
        for t in $(seq 1 64); do
                [ -r "/proc/$t/stat" ] && echo "$t $(start_of "$t") $(stat_field "$t" 41) $(stat_field "$t" 19)"
        done
}
start_of() { stat_field "$1" 22; }

for kind in pidns userns; do
        if [ "$kind" = pidns ]; then wrap=("${PIDNS[@]}") user=-; else wrap=("${BWRAP[@]}") user=$alice; fi

        # --- libqos: granted as outside ---------------------------------
        client_start "$user" "${wrap[@]}"
        host=$(newest qos-lib-client)
        [ -n "$host" ] || fail "$kind: no qos-lib-client of $alice"
        [ "$MAIN" != "$host" ] || fail "$kind: the client sees its host PID $host: no PID namespace"
        assert_eq "$(host_tid "$host" "$MAIN")" "$host" "$kind: the client's TID $MAIN is its host PID's"
        expect "self-set user-initiated 0" 0
        assert_eq "$(kernel_view "$host")" "$UIN" "$kind: user-initiated applied to the host thread"
        nice=$(stat_field "$host" 19)
        assert_contains "$("$QOSCTL" explain "$host")" "requested user-initiated by pid $host" "$kind: explain, by host PID"
        if [ "$MAIN" != 1 ]; then
                # bwrap's own PID 1, alice's too, is another process.
                expect "tid-set 1 background 0" ESRCH
        fi
        client_stop
        ok "$kind: a sandboxed libqos program gets user-initiated for itself (nice $nice)"

        # --- raw calls: nothing outside its own process ------------------
        rm -f "$TEST_TMP/caller.in" "$TEST_TMP/caller.out"
        mkfifo "$TEST_TMP/caller.in" "$TEST_TMP/caller.out"
        chmod 666 "$TEST_TMP/caller.in" "$TEST_TMP/caller.out"
        if [ "$user" = - ]; then run=("${wrap[@]}"); else run=(runuser -u "$alice" -- "${wrap[@]}"); fi
        "${run[@]}" "$TEST_TMP/bin/qos-bus-caller" "$socket" <"$TEST_TMP/caller.in" >"$TEST_TMP/caller.out" 2>"$TEST_TMP/caller.err" &
        on_exit "kill $! 2>/dev/null"
        exec 7>"$TEST_TMP/caller.in" 8<"$TEST_TMP/caller.out"
        read -r -t "$STARTUP_TIMEOUT" ns_pid <&8 || fail "$kind: qos-bus-caller did not start: $(cat "$TEST_TMP/caller.err")"
        read -r -t 10 out _ <&8 || fail "$kind: qos-bus-caller did not connect"
        assert_eq "$out" named "$kind: qos-bus-caller's connection"
        chost=$(newest qos-bus-caller)
        ask_caller() { echo "$1" >&7; read -r -t 60 out <&8 || fail "$kind: qos-bus-caller did not answer '$1'"; }

        low_tasks >"$TEST_TMP/low.before"
        tried=0 refused=0
        while read -r t start _; do
                # Its own numbers name its own threads; every other must fail.
                host_tid "$chost" "$t" >/dev/null && continue
                # The broker takes 20 calls a second from a process, in
                # bursts of 50: a limited call is asked again.
                for _ in $(seq 50); do
                        ask_caller "call $t $start background 0"
                        [[ $out == org.qosd.QoS1.Error.RateLimited* ]] || break
                        sleep 0.1
                done
                tried=$((tried + 1))
                case $out in
                org.qosd.QoS1.Error.NoSuchTask* | org.freedesktop.DBus.Error.AccessDenied*) refused=$((refused + 1)) ;;
                *) fail "$kind: SetThreadClass($t, its host start time) from the sandbox answered: $out" ;;
                esac
        done <"$TEST_TMP/low.before"
        low_tasks >"$TEST_TMP/low.after"
        # Only tasks alive at both looks; an exited one is not a change.
        join <(sort "$TEST_TMP/low.before") <(sort "$TEST_TMP/low.after") | awk '$3 != $6 || $4 != $7 { print; bad = 1 } END { exit bad }' ||
                fail "$kind: a host task 1-64 changed"
        [ "$tried" -gt 10 ] || fail "$kind: only $tried host tasks to try"
        ok "$kind: $tried host TIDs with their real start times, $refused refused, none changed"

        # --- lending between its own threads (BeginOverride) -------------
        ask_caller "spawn 1"
        set -- $out
        ns_t=$3
        ht=$(host_tid "$chost" "$ns_t") || fail "$kind: no host thread for $ns_t"
        ask_caller "call $ns_pid $(start_of "$chost") user-initiated 0"
        assert_eq "${out%% *}" user-initiated "$kind: the caller's main thread raised"
        ask_caller "lend user-initiated"
        assert_eq "${out%%:*}" "ok 1 limited 0 other 0" "$kind: one loan from the main thread"
        wait_view "$ht" "$UIN" "$kind: the spawned thread lent user-initiated"
        ok "$kind: a sandboxed program lends between its own threads"

        # qosd reads the status of at most 1,024 of its threads per call:
        # one far down the list is not found, one near the top still is.
        ask_caller "spawn 1100"
        set -- $out
        ns_last=$3
        ht=$(host_tid "$chost" "$ns_last") || fail "$kind: no host thread for $ns_last"
        ask_caller "call $ns_last $(start_of "$ht") background 0"
        assert_contains "$out" NoSuchTask "$kind: its 1,102nd thread, past the lookup's bound"
        ask_caller "call $ns_t $(start_of "$(host_tid "$chost" "$ns_t")") background 0"
        assert_eq "${out%% *}" background "$kind: its second thread is still found"
        echo quit >&7
        exec 7>&- 8<&-
        ok "$kind: a lookup reads at most 1,024 of the caller's threads"
done
