# SPDX-License-Identifier: LGPL-2.1-or-later
# qos-lib-client, a program using libqos as applications do, run as a test
# user and driven line by line (see tests/helpers/qos-lib-client.c). Source
# after lib.sh. One client at a time (a bash coprocess).
: "${QOS_LIB_CLIENT:?QOS_LIB_CLIENT must point at qos-lib-client}"
: "${QOS_LIB:?QOS_LIB must point at libqos.so}"

# Copies the test user can run: the client, with the library beside it.
client_setup() {
        mkdir -p "$TEST_TMP/bin" "$TEST_TMP/lib"
        cp "$QOS_LIB_CLIENT" "$QOSCTL" "$TEST_TMP/bin/"
        cp -L "$QOS_LIB" "$TEST_TMP/lib/libqos.so.0"
        chmod -R a+rX "$TEST_TMP/bin" "$TEST_TMP/lib"
        client_env=(env LD_LIBRARY_PATH="$TEST_TMP/lib")
}

# Start the client as USER (root: "-"), optionally under a command such as
# "qosctl run -c background", on the bus in $bus. Talk to it with
# ask/expect; MAIN is the TID of its main thread (so the PID of the client;
# CLIENT_PID is the wrapper's, e.g. runuser).
# CLIENT_BIN runs another copy of the client (one a rule matches).
client_start() { # user [wrapper...]
        local user=$1
        shift
        local run=("$@" "${client_env[@]}" DBUS_SYSTEM_BUS_ADDRESS="$bus" "${CLIENT_BIN:-$TEST_TMP/bin/qos-lib-client}")
        [ "$user" = - ] || run=(runuser -u "$user" -- "${run[@]}")
        coproc CLIENT { "${run[@]}" 2>>"$TEST_TMP/client.err"; }
        on_exit "kill $CLIENT_PID"
        ask tid
        MAIN=$REPLY
}

client_stop() {
        local rc=0
        echo quit >&"${CLIENT[1]}"
        wait "$CLIENT_PID" || rc=$?
        [ "$rc" = 0 ] || fail "qos-lib-client exited $rc: $(cat "$TEST_TMP/client.err")"
}

ask() { # command...
        echo "$*" >&"${CLIENT[1]}"
        read -r -t "$STARTUP_TIMEOUT" REPLY <&"${CLIENT[0]}" || fail "qos-lib-client did not answer '$*'"
}

expect() { # command expected
        ask "$1"
        assert_eq "$REPLY" "$2" "$1"
}
