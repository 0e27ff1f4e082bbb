#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test command (make check): unit and integration suites against the
# plain build and again under ASan+UBSan, the fuzzers for a short while,
# then the kernel-facing tests on Debian 12's kernel in a VM. Ends with one "N passed, N failed, N skipped" line.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1

builds=(build build-asan)
declare -A options=(
        [build]=""
        [build-asan]="-Db_sanitize=address,undefined -Db_lundef=false"
)
passed=0 failed=0 skipped=0

count() { # dir
        python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(p, f, s)
PY
}

for b in "${builds[@]}"; do
        echo "== $b: build"
        # shellcheck disable=SC2086
        if ! scripts/build.sh "$b" ${options[$b]}; then
                echo "== $b: build failed"
                failed=$((failed + 1))
                continue
        fi
        echo "== $b: tests"
        # The installed layout (two more builds of their own) once, in the
        # plain build: a sanitizer changes nothing in where files go.
        suites=(--suite unit --suite integration)
        [ "$b" = build ] && suites+=(--suite install)
        meson test -C "$b" --print-errorlogs "${suites[@]}"
        read -r p f s < <(count "$b")
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done

if [ -x tests/fuzz/run-fuzzers.sh ]; then
        echo "== fuzzers"
        if tests/fuzz/run-fuzzers.sh "${QOS_FUZZ_SECONDS:-15}"; then
                passed=$((passed + 1))
        else
                failed=$((failed + 1))
        fi
fi

# The kernel-facing tests again on Debian 12's own kernel (6.1, CFS) in
# qemu: about three minutes. The whole matrix (make check-kernels) takes
# four to six times that, too much for every CI run. QOS_KERNELS picks
# other kernels from tests/kernels/kernels.conf ("all"), "none" skips.
# With them, the short part of the systemd VM's tests (QOS_SYSTEMD_VM=smoke;
# "full" runs all, as make check-kernels does).
kernels=${QOS_KERNELS:-6.1}
if [ "$kernels" = none ]; then
        echo "== kernel matrix: skipped (QOS_KERNELS=none)"
        skipped=$((skipped + 1))
else
        echo "== kernel matrix: $kernels"
        log=$(mktemp)
        QOS_SYSTEMD_VM=${QOS_SYSTEMD_VM:-smoke} QOS_KERNELS=$kernels scripts/check-kernels.sh 2>&1 | tee "$log"
        if read -r p _ f _ s _ < <(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1) &&
                [ -n "$p" ]; then
                passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
        else
                failed=$((failed + 1))
        fi
        rm -f "$log"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
