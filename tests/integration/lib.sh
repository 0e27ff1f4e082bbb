# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared helpers for the root integration tests: assertions, cleanup that
# runs also when a test fails, test users, and a multi-threaded helper.
# The binaries come from the build that runs the test (meson passes their
# paths), so the same scripts run against the plain and the sanitizer build.

set -euo pipefail

: "${QOSCTL:?QOSCTL must point at the qosctl binary}"
: "${QOS_TEST_THREADS:?QOS_TEST_THREADS must point at qos-test-threads}"

TEST_NAME=$(basename "$0" .sh)
_cleanups=()

on_exit() { _cleanups+=("$*"); }

_run_cleanups() {
        local rc=$? i
        for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do
                eval "${_cleanups[i]}" >/dev/null 2>&1 || true
        done
        exit "$rc"
}
trap _run_cleanups EXIT
trap 'exit 130' INT TERM

require_root() {
        if [ "$(id -u)" != 0 ]; then
                echo "SKIP: $TEST_NAME needs root"
                exit 77
        fi
}

fail() {
        echo "FAIL: $TEST_NAME: $*" >&2
        exit 1
}

ok() { echo "ok - $*"; }

assert_eq() { # actual expected message
        [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

assert_contains() { # haystack needle message
        case "$1" in
        *"$2"*) ;;
        *) fail "$3: '$2' not in output: $1" ;;
        esac
}

# Run a command that must fail with a given exit code; its stderr+stdout
# lands in $OUT.
expect_exit() { # code cmd...
        local want=$1 rc=0
        shift
        OUT=$("$@" 2>&1) || rc=$?
        [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want; output: $OUT"
}

TEST_TMP=$(mktemp -d "/tmp/qos-$TEST_NAME.XXXXXX")
chmod 755 "$TEST_TMP"
on_exit "rm -rf '$TEST_TMP'"

# A user that exists only for this test, removed afterwards.
make_user() { # name
        userdel "$1" >/dev/null 2>&1 || true
        useradd --no-create-home --shell /bin/sh "$1"
        on_exit "userdel '$1'"
}

# Start qos-test-threads NAME... (optionally as a user: AS_USER=name); sets
# THREADS_PID and fills $TEST_TMP/threads.out with "TID NAME" lines.
start_threads() {
        local out="$TEST_TMP/threads.$RANDOM.out" i
        if [ -n "${AS_USER:-}" ]; then
                runuser -u "$AS_USER" -- "$QOS_TEST_THREADS" "$@" >"$out" &
        else
                "$QOS_TEST_THREADS" "$@" >"$out" &
        fi
        THREADS_PID=$!
        on_exit "kill $THREADS_PID"
        for ((i = 0; i < 200; i++)); do
                grep -qx ready "$out" 2>/dev/null && break
                sleep 0.02
        done
        grep -qx ready "$out" || fail "qos-test-threads did not start"
        THREADS_OUT=$out
}

tid_of() { # thread name, from the last start_threads
        awk -v n="$1" '$2 == n { print $1; exit }' "$THREADS_OUT"
}

# Field N of /proc/TID/stat as numbered in proc(5) (comm may hold spaces).
stat_field() { # tid n
        local s
        s=$(cat "/proc/$1/stat")
        s=${s##*) }
        set -- $s "$2"
        local n=${!#}
        shift $((n - 3))
        echo "$1"
}

sched_field() { # tid field (from /proc/TID/sched)
        awk -v f="$2" '$1 == f { print $3 }' "/proc/$1/sched"
}

# "policy nice slice ioprio slack" as the kernel reports them, from /proc
# and ionice, independently of qosctl's own reading.
kernel_view() { # tid
        local tid=$1
        echo "$(stat_field "$tid" 41) $(stat_field "$tid" 19) $(sched_field "$tid" se.slice)" \
                "$(ionice -p "$tid" | tr -d ' ')" "$(cat "/proc/$tid/timerslack_ns")"
}
