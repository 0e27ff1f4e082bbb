# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the daemon benchmarks, from the source tree's top, with B the
# build directory: the programs of that build, the tests' helpers
# (tests/integration/lib.sh), LOAD (bench/load.sh), a bus of its own and
# a qosd root; the caller starts qosd.
B=$(realpath "$B")
export QOSD=$B/src/daemon/qosd QOSCTL=$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$B/tests/helpers/qos-test-threads
source tests/integration/lib.sh
source bench/load.sh
require_root
start_dbus
qosd_root_init
