#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosd's memory with about 20,000 rules loaded, in the three shapes of
# bench/write-app-rules.py (ananicy's shape of many applications per file,
# many thread rules per application, one file per application; the last
# also with APPS applications, twice the rules), against
# qosd with the two shipped-style rules of the daemon benchmark. Prints
# VmRSS split into anonymous memory (qosd's own: heap, stacks) and file
# pages (the binary and its libraries, shared with every other process
# that maps them), and the peak (VmHWM, reached while loading). Root; runs
# the real qosd from BUILD on a temporary root with a private bus.
#
#   bench/daemon/run-memory-bench.sh [BUILD] [APPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
APPS=${2:-20000}
export QOSD=$PWD/$B/src/daemon/qosd QOSCTL=$PWD/$B/src/cli/qosctl QOS_SOURCE_ROOT=$PWD
export QOS_TEST_THREADS=$PWD/$B/tests/helpers/qos-test-threads
source tests/integration/lib.sh
require_root
start_dbus
qosd_root_init

kib() { awk -v k="$1" '/^'"$1"':/ { printf "%.1f", $2 / 1024 }' "/proc/$QOSD_PID/status"; }

row() { # label
        start_qosd
        printf "| %-44s | %6s | %5s | %5s | %5s | %5s |\n" "$1" "$(qosd_status RulesLoaded)" \
                "$(kib VmRSS)" "$(kib RssAnon)" "$(kib RssFile)" "$(kib VmHWM)"
        stop_qosd TERM
}

apps=$QOSD_ROOT/etc/qos/apps.d
printf 'qosd memory, MiB; %s, kernel %s\n\n' "$(date '+%F %H:%M')" "$(uname -r)"
printf "| %-44s | %6s | %5s | %5s | %5s | %5s |\n" "rule set" "rules" "RSS" "anon" "file" "peak"
printf "| %-44s | %6s | %5s | %5s | %5s | %5s |\n" "---" "---:" "---:" "---:" "---:" "---:"
printf '[Match]\nExecutable=/opt/bench/bin/probe\n\n[Process]\nClass=background\n' >"$apps/probe.conf"
printf '[Match]\nExecutable=/opt/bench/bin/storm\n\n[Process]\nClass=background\n' >"$apps/storm.conf"
row "2 rules"
# The files shape has two rules an application: at APPS/2 files it holds
# as many rules as the others, at APPS as many applications.
for run in "json $APPS" "threads $APPS" "files $((APPS / 2))" "files $APPS"; do
        read -r shape n <<<"$run"
        rm -rf "$apps" && mkdir -p "$apps"
        bench/write-app-rules.py "$apps" "$n" "$shape"
        case $shape in
        json) label="$n apps in 360 schedqos .json files" ;;
        threads) label="360 qos.d files, many [Thread:] rules each" ;;
        files) label="$n qos.d files, process + thread rule" ;;
        esac
        row "$label"
done
