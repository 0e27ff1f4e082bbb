#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel matrix (make check-kernels): the kernel-facing tests on every
# kernel in tests/kernels/kernels.conf, each booted in qemu, plus the
# running kernel. Ends with one "N passed, N failed, N skipped" line and
# writes build-kernels/matrix.md (the kernel x knob table) and a console
# log and result file per kernel in build-kernels/.
#
# Usage: check-kernels.sh [NAME...]   (default: every kernel in the list;
# QOS_KERNELS="6.1 host" does the same from the environment, "all" is all)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
work=$src/build-kernels
conf=tests/kernels/kernels.conf

scripts/install-deps.sh
scripts/install-kernel-deps.sh

# shellcheck disable=SC2206
wanted=(${@:-${QOS_KERNELS:-all}})
# shellcheck disable=SC2207
[ "${wanted[*]}" = all ] && wanted=($(awk '!/^#/ && NF { print $1 }' "$conf"))
for name in "${wanted[@]}"; do
        awk -v n="$name" '$1 == n { found = 1 } END { exit !found }' "$conf" ||
                { echo "check-kernels: no kernel '$name' in $conf" >&2; exit 2; }
done

echo "== kernels: build"
scripts/build.sh build
mkdir -p "$work"
rm -f "$work"/results/*.txt "$work"/logs/*.log
mkdir -p "$work/results" "$work/logs"
tests/kernels/list-tests.py "$src/build" >"$work/tests.list"
tests/kernels/make-initramfs.sh "$work/initramfs.cpio" build . "$work/tests.list"
echo "== kernels: $(wc -l <"$work/tests.list") tests on ${wanted[*]}"

for name in "${wanted[@]}"; do
        read -r _ package args < <(awk -v n="$name" '$1 == n' "$conf")
        results=$work/results/$name.txt log=$work/logs/$name.log
        start=$SECONDS
        if [ "$package" = - ]; then
                echo "== kernels: $name ($(uname -r), no VM)"
                {
                        tests/kernels/report-kernel.sh build/src/cli/qosctl build/tests/helpers/qos-kernel-probe
                        tests/kernels/run-tests.sh "$work/tests.list"
                } 3>"$results" >"$log" 2>&1 || true
        elif [ "$package" = @ext ] && [ ! -s "$work/ext/current/bzImage" ]; then
                echo "== kernels: $name (not built: make kernel-ext)"
                echo "QOS-NOT-BUILT make kernel-ext builds it (about 40 minutes)" >"$results"
        else
                accel=tcg
                if [ "$package" = @ext ]; then
                        vmlinuz=$work/ext/current/bzImage
                        accel=$(tests/kernels/ext/vm-accel.sh "$work/ext/current")
                else
                        vmlinuz=$(tests/kernels/fetch-kernel.sh "$package" "$work/cache")
                fi
                echo "== kernels: $name ($(basename "$vmlinuz"))"
                # shellcheck disable=SC2086 # the arguments are words
                QOS_VM_ACCEL=$accel tests/kernels/boot.sh "$vmlinuz" "$work/initramfs.cpio" "$results" "$log" $args || true
        fi
        echo "QOS-TIME $((SECONDS - start))" >>"$results"
done

echo "== kernels: summary (table in build-kernels/matrix.md, logs in build-kernels/logs)"
results=()
for name in "${wanted[@]}"; do results+=("$work/results/$name.txt"); done
summary=$(tests/kernels/summarize.py "$work/matrix.md" "${results[@]}") || true
echo "$summary" | sed '$d'
read -r p _ f _ s _ < <(echo "$summary" | tail -n 1)

# The group layer on a systemd machine (Debian 12, systemd as PID 1,
# cgroup v2): both system buses in full, about eight minutes;
# QOS_SYSTEMD_VM=smoke runs the short part on dbus-broker, none skips.
case ${QOS_SYSTEMD_VM:-full} in
none) echo "== systemd VM: not run (QOS_SYSTEMD_VM=none)" ;;
*)
        [ "${QOS_SYSTEMD_VM:-full}" = smoke ] && export QOS_VM_SMOKE=1 QOS_VM_BUSES=broker
        vmlog=$(mktemp)
        tests/systemd-vm/run.sh build 2>&1 | tee "$vmlog"
        if read -r _ _ vp _ vf _ vs _ < <(grep -E '^systemd VM: [0-9]+ passed' "$vmlog" | tail -n 1) && [ -n "$vp" ]; then
                p=$((p + vp)) f=$((f + vf)) s=$((s + vs))
        else
                f=$((f + 1))
        fi
        rm -f "$vmlog"
        ;;
esac
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
