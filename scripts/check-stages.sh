# SPDX-License-Identifier: LGPL-2.1-or-later
# Stages of make check (sourced by scripts/check.sh): each runs a command,
# says when it starts and how long it took, and writes one row of the
# table the run ends with: name, start and length in seconds, passed,
# failed, skipped. Rows are appended to $STAGES, one line each, so stages
# running side by side can write them. A stage's "==" lines go to
# STAGE_FD (standard output unless set), so that a lane whose output is
# kept for later still shows them as they happen, prefixed STAGE_LANE.

CHECK_START=${CHECK_START:-$SECONDS}

stage_begin() { # name
        STAGE_NAME=$1
        STAGE_AT=$((SECONDS - CHECK_START))
        printf '== [%2d:%02d] %s%s\n' $((STAGE_AT / 60)) $((STAGE_AT % 60)) "${STAGE_LANE:-}" "$1" >&"${STAGE_FD:-1}"
}

stage_end() { # passed failed skipped
        local took=$((SECONDS - CHECK_START - STAGE_AT))
        printf '%s\t%d\t%d\t%d\t%d\t%d\n' "$STAGE_NAME" "$STAGE_AT" "$took" "$1" "$2" "$3" >>"$STAGES"
        printf '== %s%s: %d s, %d passed, %d failed, %d skipped\n' "${STAGE_LANE:-}" "$STAGE_NAME" "$took" "$1" "$2" "$3" \
                >&"${STAGE_FD:-1}"
}

# A step that passes or fails as a whole: a build counts nothing when it
# works, a check (the fuzzers, lintian) one pass.
stage_step() { # name command...
        stage_run 0 "$@"
}

stage_check() { # name command...
        stage_run 1 "$@"
}

stage_run() { # passes name command...
        local passes=$1
        stage_begin "$2"
        shift 2
        if "$@"; then
                stage_end "$passes" 0 0
        else
                stage_end 0 1 0
                return 1
        fi
}

# meson test in a build directory, counted from its test log.
stage_meson() { # name dir meson-test-args...
        local name=$1 dir=$2 p f s
        shift 2
        stage_begin "$name"
        meson test -C "$dir" --print-errorlogs "$@"
        if read -r p f s < <(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(p, f, s)
PY
        ); then stage_end "$p" "$f" "$s"; else stage_end 0 1 0; fi
}

# A command that ends with a line "[WORD: ]N passed, N failed, N skipped".
stage_summary() { # name command...
        local name=$1 log p f s
        shift
        stage_begin "$name"
        log=$(mktemp)
        "$@" 2>&1 | tee "$log"
        if read -r p f s < <(sed -nE 's/^([A-Za-z ]+: )?([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\2 \3 \4/p' "$log" | tail -n 1) &&
                [ -n "$p" ]; then
                stage_end "$p" "$f" "$s"
        else
                stage_end 0 1 0
        fi
        rm -f "$log"
}

# A stage left out by a setting: one skip.
stage_skip() { # name why
        stage_begin "$1"
        echo "   skipped: $2"
        stage_end 0 0 1
}

# The table, in the order the stages started, and the one closing line.
# Returns non-zero if anything failed.
stages_report() {
        local total=$((SECONDS - CHECK_START))
        echo
        printf '%-38s %6s %6s %7s %7s %7s\n' stage "at s" seconds passed failed skipped
        sort -s -t $'\t' -k2,2n "$STAGES" | while IFS=$'\t' read -r name at took p f s; do
                printf '%-38s %6d %6d %7d %7d %7d\n' "$name" "$at" "$took" "$p" "$f" "$s"
        done
        awk -F '\t' -v total="$total" '{ p += $4; f += $5; s += $6 }
                END { printf "%-38s %6s %6d %7d %7d %7d\n\n%d passed, %d failed, %d skipped\n",
                             "all", "", total, p, f, s, p, f, s; exit f > 0 }' "$STAGES"
}
