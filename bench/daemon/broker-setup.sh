# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the broker's benchmarks after tests/integration/lib.sh, from
# the source tree's top, with B the build directory: an unprivileged user
# who runs BUILD's bench-broker-rtt (libqos's SetThreadClass) against a
# qosd of its own on a private bus.
broker_bench_start() { # user
        broker_bench_user=$1
        make_user "$broker_bench_user"
        mkdir -p "$TEST_TMP/bin"
        cp "$B/bench/daemon/bench-broker-rtt" "$TEST_TMP/bin/"
        cp -L "$B/src/lib/libqos.so.0" "$TEST_TMP/bin/"
        chmod -R a+rX "$TEST_TMP/bin"
        start_dbus
        qosd_root_init
        start_qosd
}

broker_bench_run() { # calls
        runuser -u "$broker_bench_user" -- env LD_LIBRARY_PATH="$TEST_TMP/bin" \
                DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" "$TEST_TMP/bin/bench-broker-rtt" "$1"
}
