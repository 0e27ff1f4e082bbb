#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test command (make check). On this machine: the unit and integration
# suites against the plain build and again under ASan+UBSan, an install
# under another prefix, the fuzzers for a short while. In qemu: the
# kernel-facing tests on Debian 12's own kernel (6.1), and the short part
# of the tests on a systemd machine, from the Debian packages.
#
# The VMs' lane runs beside this machine's suites: what it fetches and
# builds first (the 6.1 kernel, the systemd VM's disk, the packages) waits
# on the network and the disk, and qemu leaves a CPU to the suites. Each
# stage says when it starts; the run ends with a table of the stages and
# one "N passed, N failed, N skipped" line.
#
# QOS_KERNELS picks other kernels from tests/kernels/kernels.conf ("none"
# skips the VM), QOS_SYSTEMD_VM=full runs the systemd VM's tests in full
# on both system buses, "none" skips it; QOS_FUZZ_SECONDS (15) per fuzzer.
set -uo pipefail
cd "$(dirname "$0")/.."
STAGES=$(mktemp)
export STAGES
trap 'rm -f "$STAGES"' EXIT
source scripts/check-stages.sh

kernels=${QOS_KERNELS:-6.1}
systemd_vm=${QOS_SYSTEMD_VM:-smoke}
lanelog=$(mktemp)

# Every package any stage needs, in one apt run: the lane's own
# install-deps calls then find them, and two apt runs never race.
stage_begin "packages"
if scripts/install-deps.sh --group build test kernels vm deb; then
        stage_end 0 0 0
else
        stage_end 0 1 0
        stages_report
        exit 1
fi

stage_step "build" scripts/build.sh build

# The VMs' lane, in the background, its output in $lanelog (shown at the
# end): it needs the plain build, which is there now.
vm_lane() {
        if [ "$systemd_vm" != none ]; then
                stage_step "systemd VM: disk (mmdebstrap)" tests/systemd-vm/make-rootfs.sh build-systemd-vm/cache
                stage_check "systemd VM: Debian packages, lintian" env DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" \
                        scripts/deb.sh --if-stale
        fi
        if [ "$kernels" = none ]; then
                stage_skip "kernel matrix" "QOS_KERNELS=none"
        else
                stage_summary "kernel matrix: $kernels" env QOS_SYSTEMD_VM=none QOS_KERNELS="$kernels" \
                        scripts/check-kernels.sh
        fi
        case $systemd_vm in
        none) stage_skip "systemd VM" "QOS_SYSTEMD_VM=none" ;;
        full) stage_summary "systemd VM (full)" tests/systemd-vm/run.sh build ;;
        *) stage_summary "systemd VM (smoke, dbus-broker)" env QOS_VM_SMOKE=1 QOS_VM_BUSES=broker \
                tests/systemd-vm/run.sh build ;;
        esac
}
STAGE_FD=3 STAGE_LANE="(VMs) " vm_lane 3>&1 >"$lanelog" 2>&1 &
lane=$!
kill_tree() { # pid: it and everything it started (qemu too)
        local c
        for c in $(pgrep -P "$1"); do kill_tree "$c"; done
        kill "$1" 2>/dev/null
}
trap 'kill_tree $lane; rm -f "$STAGES" "$lanelog"' EXIT

# The installed layout (two more builds of its own) once, in the plain
# build: a sanitizer changes nothing in where files go.
stage_meson "tests (plain build)" build --suite unit --suite integration --suite install
if stage_step "build (ASan+UBSan)" scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false; then
        stage_meson "tests (ASan+UBSan)" build-asan --suite unit --suite integration
fi
stage_check "fuzzers (${QOS_FUZZ_SECONDS:-15} s each)" tests/fuzz/run-fuzzers.sh "${QOS_FUZZ_SECONDS:-15}"

echo "== waiting for the VMs' lane (started at the build)"
wait "$lane"
echo "== the VMs' lane:"
cat "$lanelog"
rm -f "$lanelog"
stages_report
