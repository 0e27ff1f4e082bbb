# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared helpers for the root integration tests: assertions, cleanup that
# runs also when a test fails, test users, and a multi-threaded helper.
# The binaries come from the build that runs the test (meson passes their
# paths), so the same scripts run against the plain and the sanitizer build.

set -euo pipefail

: "${QOSCTL:?QOSCTL must point at the qosctl binary}"
: "${QOS_TEST_THREADS:?QOS_TEST_THREADS must point at qos-test-threads}"

TEST_NAME=$(basename "$0" .sh)
# Seconds a helper program or qosd may take to come up (not a measurement).
STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-30}
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
        if [ -n "${QOSD_LOG:-}" ] && [ -s "$QOSD_LOG" ]; then
                echo "--- last lines of the qosd log:" >&2
                tail -n "${QOS_LOG_LINES:-30}" "$QOSD_LOG" >&2
        fi
        exit 1
}

ok() { echo "ok - $*"; }

skip() { # why
        echo "SKIP: $TEST_NAME: $*"
        exit 77
}

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

# A user that exists only for this test, removed afterwards; with a home
# directory under DIR (created, mode 755) if DIR is given.
make_user() { # name [dir]
        local home=(--no-create-home)
        if [ -n "${2:-}" ]; then
                mkdir -p "$2"
                chmod 755 "$2"
                home=(--create-home --home-dir "$2/$1")
        fi
        remove_user "$1"
        useradd "${home[@]}" --shell /bin/sh "$1"
        on_exit "remove_user '$1'"
}

# userdel refuses a user who still has processes, and a cleanup's kill
# does not wait: end theirs first (a test's user runs nothing else).
remove_user() { # name
        id -u "$1" >/dev/null 2>&1 || return 0
        pkill -KILL -u "$1" 2>/dev/null || true
        for _ in $(seq 50); do
                pgrep -u "$1" >/dev/null || break
                sleep 0.1
        done
        userdel "$1" >/dev/null 2>&1 || true
}

# qos-bus-flood (QOS_BUS_FLOOD) as USER in the background, its output in
# $TEST_TMP/flood.LABEL, its PID added to FLOODS. setpriv, not runuser:
# the flooder itself gets the SIGTERM of stop_floods, which ends it.
FLOODS=()
flood_as() { # user label args...
        local user=$1 label=$2 bin
        shift 2
        bin=$(user_runnable "${QOS_BUS_FLOOD:?QOS_BUS_FLOOD must point at qos-bus-flood}")
        setpriv --reuid="$user" --regid="$user" --init-groups "$bin" "$@" >"$TEST_TMP/flood.$label" 2>&1 &
        FLOODS+=($!)
}
# Stop the floods and wait until each has printed its counts.
stop_floods() {
        local p
        for p in "${FLOODS[@]}"; do
                kill "$p" 2>/dev/null || true
        done
        for p in "${FLOODS[@]}"; do
                wait "$p" 2>/dev/null || true
        done
        FLOODS=()
}

# A path to FILE that any user can run: FILE itself where it is, else a copy
# in $TEST_TMP/bin (the tree may be in a private directory, mode 700).
user_runnable() { # file
        if runuser -u nobody -- test -x "$1" 2>/dev/null; then
                echo "$1"
                return
        fi
        mkdir -p "$TEST_TMP/bin"
        [ -e "$TEST_TMP/bin/${1##*/}" ] || cp "$1" "$TEST_TMP/bin/"
        chmod -R a+rX "$TEST_TMP/bin"
        echo "$TEST_TMP/bin/${1##*/}"
}

# Start qos-test-threads NAME... (optionally as a user: AS_USER=name; from
# another path, e.g. a copy a rule matches: THREADS_BIN=path); sets
# THREADS_PID and fills $TEST_TMP/threads.out with "TID NAME" lines.
start_threads() {
        local out="$TEST_TMP/threads.$RANDOM.out" i
        if [ -n "${AS_USER:-}" ]; then
                runuser -u "$AS_USER" -- "$(user_runnable "${THREADS_BIN:-$QOS_TEST_THREADS}")" "$@" >"$out" &
        else
                "${THREADS_BIN:-$QOS_TEST_THREADS}" "$@" >"$out" &
        fi
        THREADS_PID=$!
        on_exit "kill $THREADS_PID"
        # Start-up is not what is measured: a sanitizer build on a loaded
        # machine may take seconds to get here.
        WAIT_TIMEOUT=$STARTUP_TIMEOUT wait_for grep -qx ready "$out" || fail "qos-test-threads did not start"
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

# Poll until a command succeeds: 30 s unless WAIT_TIMEOUT says otherwise, a
# bound for a loaded machine (a wait that succeeds returns at once).
wait_for() { # cmd...
        local i n=$(( ${WAIT_TIMEOUT:-30} * 50 ))
        for ((i = 0; i < n; i++)); do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.02
        done
        return 1
}

view_is() { # tid expected
        [ "$(kernel_view "$1" 2>/dev/null)" = "$2" ]
}

# Wait until the kernel reports `expected` for tid; fail with what it has.
wait_view() { # tid expected message
        wait_for view_is "$1" "$2" || fail "$3: kernel reports '$(kernel_view "$1")', expected '$2'"
}

# What the kernel reports for a thread in CLASS, taken from a throwaway
# process that qosctl run put in it: the reference the daemon must match.
# VIEW is kernel_view (the default) or sched_view.
class_view() { # class [view]
        local p
        "$QOSCTL" run -c "$1" sleep 30 &
        p=$!
        wait_for grep -qx sleep "/proc/$p/comm" || fail "qosctl run did not start sleep"
        "${2:-kernel_view}" "$p"
        kill "$p"
        wait "$p" 2>/dev/null || true
}

# A private system bus: dbus-daemon with the default-deny policy of
# Debian's system.conf plus qosd's shipped policy file. Exports
# DBUS_SYSTEM_BUS_ADDRESS so that qosd and qosctl use it. DBUS_LOG: a file
# for the bus's own messages (one per call its policy rejects) instead of
# the test's stderr. DBUS_EXTRA_POLICY: a policy file of the test's own.
start_dbus() {
        local dir="$TEST_TMP/dbus" i
        : "${QOS_SOURCE_ROOT:?}"
        mkdir -p "$dir"
        chmod 755 "$dir"
        sed -e "s|@SOCKET@|$dir/socket|" -e "s|@POLICY@|$QOS_SOURCE_ROOT/data/org.qosd.QoS1.conf|" \
                -e "s|@EXTRA@|${DBUS_EXTRA_POLICY:-$dir/no-extra-policy.conf}|" \
                "$QOS_SOURCE_ROOT/tests/data/test-bus.conf.in" >"$dir/bus.conf"
        if [ -n "${DBUS_LOG:-}" ]; then
                dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile --nosyslog 2>>"$DBUS_LOG" &
        else
                dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile --nosyslog &
        fi
        DBUS_PID=$!
        on_exit "kill $DBUS_PID"
        for ((i = 0; i < 250; i++)); do
                [ -S "$dir/socket" ] && break
                sleep 0.02
        done
        [ -S "$dir/socket" ] || fail "dbus-daemon did not start"
        export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/socket"
}

# A session bus of USER's own (dbus-daemon --session), stopped on exit;
# sets SESSION_BUS to its address.
start_session_bus() { # user
        mkdir -p "$TEST_TMP/session"
        chown "$1" "$TEST_TMP/session"
        runuser -u "$1" -- dbus-daemon --session --address="unix:path=$TEST_TMP/session/bus" --nofork --nopidfile \
                >"$TEST_TMP/session.log" 2>&1 &
        on_exit "kill $!"
        wait_for test -S "$TEST_TMP/session/bus" || fail "the session bus did not start: $(cat "$TEST_TMP/session.log")"
        SESSION_BUS=unix:path=$TEST_TMP/session/bus
}

# A --root for qosd inside the test directory, with empty rule directories.
# Programs the rules match are copies of qos-test-threads under $QOSD_BIN.
qosd_root_init() {
        QOSD_ROOT="$TEST_TMP/root"
        QOSD_BIN="$TEST_TMP/bin"
        QOSD_LOG="$TEST_TMP/qosd.log"
        mkdir -p "$QOSD_ROOT/etc/qos/apps.d" "$QOSD_ROOT/usr/share/qos/apps.d" "$QOSD_BIN"
        chmod 755 "$QOSD_BIN"
        # The machine's users' own rule files are not the test's: a test
        # that wants them turns UserRules on.
        printf '[Daemon]\nUserRules=no\n' >"$QOSD_ROOT/etc/qos/qosd.conf"
        : >"$QOSD_LOG"
        on_exit 'stop_qosd KILL'
}

# A program a rule can match: a copy of qos-test-threads called NAME.
test_program() { # name
        cp "$QOS_TEST_THREADS" "$QOSD_BIN/$1"
        echo "$QOSD_BIN/$1"
}

# A rule file in the admin directory: NAME.conf matching EXE, with a
# process class (or "-" for none) and [Thread:GLOB] classes.
write_rule() { # name exe class [glob class]...
        local f="$QOSD_ROOT/etc/qos/apps.d/$1.conf" exe=$2 class=$3
        shift 3
        printf '[Match]\nExecutable=%s\n' "$exe" >"$f"
        [ "$class" = - ] || printf '\n[Process]\nClass=%s\n' "$class" >>"$f"
        while [ $# -ge 2 ]; do
                printf '\n[Thread:%s]\nClass=%s\n' "$1" "$2" >>"$f"
                shift 2
        done
}

# Start qosd from the build on $QOSD_ROOT and wait until it is ready. Without
# a bus (start_dbus) it runs with --no-bus. Extra arguments go to qosd;
# QOSD_WRAPPER (words, e.g. a setpriv command line) runs it.
start_qosd() {
        local from bus=() i
        from=$(wc -l <"$QOSD_LOG")
        [ -n "${DBUS_SYSTEM_BUS_ADDRESS:-}" ] || bus=(--no-bus)
        # shellcheck disable=SC2086 # the wrapper is words
        ${QOSD_WRAPPER:-} "$QOSD" --root "$QOSD_ROOT" "${bus[@]}" "$@" >>"$QOSD_LOG" 2>&1 &
        QOSD_PID=$!
        for ((i = 0; i < STARTUP_TIMEOUT * 50; i++)); do
                tail -n +"$((from + 1))" "$QOSD_LOG" | grep "^ready:" >/dev/null && return 0
                kill -0 "$QOSD_PID" 2>/dev/null || break
                sleep 0.02
        done
        cat "$QOSD_LOG" >&2
        fail "qosd did not become ready"
}

# Stop qosd with a signal (TERM by default) and wait for it to exit. After
# TERM it must exit 0 (under the sanitizers: no leak, no error report).
stop_qosd() { # [signal]
        local rc=0 pid=${QOSD_PID:-}
        [ -n "$pid" ] || return 0
        QOSD_PID=
        kill -"${1:-TERM}" "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || rc=$?
        if [ "${1:-TERM}" = TERM ] && [ "$rc" != 0 ]; then
                fail "qosd exited with status $rc after SIGTERM"
        fi
        if grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$QOSD_LOG"; then
                fail "sanitizer report in the qosd log"
        fi
}

# qos-test-threads --commands as PROGRAM (a copy a rule matches), driven
# through fd 7; COMMANDS_PID is the process.
start_commands() { # program
        mkfifo "$TEST_TMP/cmd"
        "$1" --commands main <"$TEST_TMP/cmd" >"$TEST_TMP/cmd.out" &
        COMMANDS_PID=$!
        on_exit "kill $COMMANDS_PID"
        exec 7>"$TEST_TMP/cmd"
        on_exit "exec 7>&-"
        wait_for grep -qx ready "$TEST_TMP/cmd.out" || fail "command helper did not start"
}

# Send a command that names thread NAME (spawn, spawn-from, rename), wait
# for its "TID NAME" answer and print the TID.
command_tid() { # name command...
        local name=$1
        shift
        echo "$*" >&7
        wait_for grep -q " $name\$" "$TEST_TMP/cmd.out" || fail "'$*' got no answer"
        awk -v n="$name" '$2 == n { t = $1 } END { print t }' "$TEST_TMP/cmd.out"
}

# The attack table of a security test, as docs/security.md shows it: the
# rows of the associative array `tried` (row -> attempts) and the total in
# $attempts. WORD names what must not have happened, N how often it did.
# shellcheck disable=SC2154 # tried and attempts are the caller's
attack_table() { # word n
        local row
        printf '\n| attack | attempts | %s |\n| --- | ---: | ---: |\n' "$1"
        for row in "${!tried[@]}"; do
                printf '| %s | %d | 0 |\n' "$row" "${tried[$row]}"
        done | sort
        echo "$attempts attempts tried, $2 $1"
        [ "$2" = 0 ] || fail "$2 $1"
}

# The overrides qosd holds (its ActiveOverrides property), and waiting for
# a number of them.
active() {
        busctl --system get-property org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager ActiveOverrides |
                awk '{print $2}'
}
active_is() { [ "$(active)" = "$1" ]; }
wait_active() { # n message
        wait_for active_is "$1" || fail "$2: qosd holds $(active) override(s), expected $1"
}

# One counter from `qosctl status`.
qosd_status() { # name
        "$QOSCTL" status | awk -v n="$1" '$1 == n { print $2 }'
}

# The whole value of a qosctl status line ("1: 4242 (gamemode, uid 1000)").
qosd_status_text() { # name
        "$QOSCTL" status | awk -v n="$1" '$1 == n { $1 = ""; sub(/^ /, ""); print }'
}

status_is() { # name value
        [ "$(qosd_status "$1")" = "$2" ]
}

# A session source's call (SetGames, SetAudio) from USER, who sits at no
# seat and is not ForegroundUser=: refused, and told why.
refused_at_no_seat() { # user method
        local out
        out=$(runuser -u "$1" -- env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" dbus-send --system \
                --print-reply --dest=org.qosd.QoS1 /org/qosd/QoS1 "org.qosd.QoS1.Manager.$2" array:int32:$$ 2>&1) &&
                fail "$1's $2 was taken: $out"
        assert_contains "$out" "no active session on a seat" "$1 is refused, and told why"
}

status_above() { # name value
        [ "$(qosd_status "$1")" -gt "$2" ]
}

# Whether qosd is the sanitizer build (its memory figures then include
# the sanitizer's own). Not `ldd | grep -q`: under pipefail grep's early
# exit fails ldd on a broken pipe and reads as "no".
qosd_has_asan() {
        [[ "$(ldd "$QOSD")" == *libasan* ]]
}

# The ASan runtime that the sanitizer build's preload library needs (empty
# in the plain build). It must come first in the initial library list of
# whatever program the library is loaded into, instrumented or not.
preload_runtime() {
        ldd "${QOS_PRELOAD:?QOS_PRELOAD must point at libqos-preload.so}" | awk '/libasan/ { print $3 }'
}

# "LD_PRELOAD=..." that loads the preload library into a program (for env).
preload_env() {
        local asan
        asan=$(preload_runtime)
        echo "LD_PRELOAD=${asan:+$asan:}$QOS_PRELOAD"
}

# GStreamer builds its plugin registry on a program's first run, which
# then takes seconds (gst-plugin-scanner): the test gets a registry of its
# own, fresh each time, built here, before anything is watched or timed,
# so that a machine that never ran GStreamer behaves as one that did.
gst_fresh_registry() {
        export GST_REGISTRY=$TEST_TMP/gst-registry.bin
        rm -f "$GST_REGISTRY"
        gst-inspect-1.0 >/dev/null 2>&1 || fail "gst-inspect-1.0 could not build GStreamer's registry"
        [ -s "$GST_REGISTRY" ] || fail "gst-inspect-1.0 left no registry at $GST_REGISTRY"
}

# "POLICY NICE SLICE_NS" of a thread in CLASS as sched_getattr() reports
# it to the thread itself (qos-class-check), from a process that qosctl run
# put in the class: the reference for what preloaded programs report.
class_triple() { # class
        "$QOSCTL" run -c "$1" "$QOS_CLASS_CHECK" job 0 | awk '$1 == "start" { print $2, $3, $4 }'
}

# "policy nice slice" from /proc/TID/stat and /proc/TID/sched with shell
# builtins only (no process started): fast enough to watch the threads of
# a program that is starting. SCHED_IDLE threads have no se.slice line: "-".
sched_view() { # tid
        local s k v slice=- tid=$1
        read -r s <"/proc/$tid/stat" || return 1
        s=${s##*) }
        set -- $s
        [ -r "/proc/$tid/sched" ] || return 1
        while read -r k _ v; do
                [ "$k" = se.slice ] && slice=$v
        done <"/proc/$tid/sched"
        echo "${39} ${17} $slice"
}

# The cpu cgroup hierarchy qosd would use, as the kernel shows it (v1 cpu
# controller, else cgroup v2 with cpu enabled below the root), and the file
# a TID is written to there. Empty CPU_CGROUP: none.
CPU_CGROUP=$(findmnt -n -t cgroup -O cpu -o TARGET 2>/dev/null | head -n1 || true)
CGROUP_THREADS=tasks
if [ -z "$CPU_CGROUP" ]; then
        CGROUP_THREADS=cgroup.threads
        CPU_CGROUP=$(findmnt -n -t cgroup2 -o TARGET 2>/dev/null | head -n1 || true)
        if [ -n "$CPU_CGROUP" ] && ! grep -qw cpu "$CPU_CGROUP/cgroup.subtree_control" 2>/dev/null; then
                CPU_CGROUP=
        fi
fi

# Each test has groups of its own, so tests running side by side (and a
# qosd on the machine) never see each other's.
export QOS_CGROUP_PREFIX="qos-test-$$"

# Move whatever is left in a cgroup back to the root, then remove it.
remove_cgroup() { # dir
        local t
        [ -d "$1" ] || return 0
        for t in $(cat "$1/$CGROUP_THREADS" "$1/cgroup.procs" 2>/dev/null); do
                echo "$t" >"$CPU_CGROUP/$CGROUP_THREADS" 2>/dev/null || true
        done
        # A task killed a moment ago keeps the cgroup busy until it is reaped.
        for _ in $(seq 50); do
                rmdir "$1" 2>/dev/null && return 0
                sleep 0.05
        done
        rmdir "$1"
}
if [ -n "$CPU_CGROUP" ]; then
        on_exit 'for g in "$CPU_CGROUP/$QOS_CGROUP_PREFIX".*; do remove_cgroup "$g"; done'
fi

# Groups of an earlier run that was killed before its cleanup could run (a
# timeout): qos-test-PID.* and qos-test-foreign-PID whose test shell PID is
# gone. Empty as they are, they hold real-time budget that later runs need.
# Groups of tests running now (their PID alive) are theirs.
remove_stale_cgroups() {
        local g pid
        for g in "$CPU_CGROUP"/qos-test-*; do
                [ -d "$g" ] || continue
                pid=${g##*/qos-test-}
                pid=${pid#foreign-}
                pid=${pid%%.*}
                case $pid in '' | *[!0-9]*) continue ;; esac
                [ -d "/proc/$pid" ] && continue
                remove_cgroup "$g" || echo "note: $TEST_NAME: cannot remove the stale cgroup $g" >&2
        done
}
[ -z "$CPU_CGROUP" ] || remove_stale_cgroups

# The real-time budget of qosd's groups for the classes named (the class
# table's group_rt_pct of v1's 1 s period), taken in one step each: this
# test's own groups are made now with their budgets, which the kernel
# grants only while the hierarchy's root has that much free (cgroup v1
# with CONFIG_RT_GROUP_SCHED). qosd later finds them made. Where the
# kernel refuses, the test skips, naming the groups that hold the budget;
# nothing another process takes meanwhile can make it fail instead.
require_rt_budget() { # class...
        local f="$CPU_CGROUP/cpu.rt_runtime_us" c us dir g v total held=0 holders= need=0
        [ -n "$CPU_CGROUP" ] && [ -f "$f" ] || return 0
        total=$(cat "$f")
        [ "$total" -ge 0 ] || return 0 # -1: no limit
        for c in "$@"; do
                case $c in
                user-interactive) us=500000 ;; user-initiated) us=200000 ;; background) us=100000 ;;
                *) fail "require_rt_budget: no group budget for class $c" ;;
                esac
                need=$((need + us))
                dir=$CPU_CGROUP/$QOS_CGROUP_PREFIX.$c
                mkdir -p "$dir"
                # A group removed a moment ago (a stale one, above) gives its
                # budget back only once the kernel has freed it.
                WAIT_TIMEOUT=5 wait_for sh -c "echo $us >'$dir/cpu.rt_runtime_us'" && continue
                for g in "$CPU_CGROUP"/*/; do
                        v=$(cat "$g/cpu.rt_runtime_us" 2>/dev/null) || continue
                        [ "$v" -gt 0 ] || continue
                        held=$((held + v))
                        holders+=" ${g%/} ($v us)"
                done
                echo "SKIP: $TEST_NAME: needs $need us of real-time budget free under $CPU_CGROUP ($total us a period)," \
                        "but $held us are held by:$holders"
                exit 77
        done
}

require_groups() {
        if [ -z "$CPU_CGROUP" ]; then
                echo "SKIP: $TEST_NAME: no cpu cgroup hierarchy qosd can use"
                exit 77
        fi
        # qosd moves only threads of the root cgroup into its groups. Where
        # processes start elsewhere (systemd runs the machine, a container)
        # these tests' premise does not hold; tests/systemd-vm covers that.
        local mine
        mine=$(cgroup_of $$)
        if [ "$mine" != / ]; then
                echo "SKIP: $TEST_NAME: processes start in cgroup $mine, not the root, so qosd's own groups are not used here"
                exit 77
        fi
}

# The cpu cgroup of one thread, as /proc/TID/cgroup shows it.
cgroup_of() { # tid
        if [ "$CGROUP_THREADS" = tasks ]; then
                awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3 }' "/proc/$1/cgroup"
        else
                awk -F: '$1 == 0 { print $3 }' "/proc/$1/cgroup"
        fi
}

# Copies a test user can run (the build tree need not be readable to
# them): binaries into $TEST_TMP/bin, libqos.so.0 (from $1) into
# $TEST_TMP/lib, for LD_LIBRARY_PATH="$TEST_TMP/lib".
copy_for_user() { # libqos.so binary...
        local lib=$1
        shift
        mkdir -p "$TEST_TMP/bin" "$TEST_TMP/lib"
        cp "$@" "$TEST_TMP/bin/"
        cp -L "$lib" "$TEST_TMP/lib/libqos.so.0"
        chmod -R a+rX "$TEST_TMP/bin" "$TEST_TMP/lib"
}

# The class table's utilization clamps of CLASS as "MIN MAX" (0..1024),
# from the uclamp row of `qosctl classes` (in parentheses where the kernel
# lacks them).
class_uclamp() { # class
        "$QOSCTL" classes | awk -v c="$1" '
                $1 == "KNOB" { for (i = 2; i <= NF; i++) col[$i] = i }
                $1 == "uclamp" { v = $col[c]; gsub(/[()]/, "", v); sub(/\.\./, " ", v); print v }'
}

# A clamp (0..1024) as cpu.uclamp.min/max print it: percent with two
# decimals, "max" for 1024.
uclamp_percent() { # value
        if [ "$1" -ge 1024 ]; then
                echo max
        else
                local h=$(( ($1 * 10000 + 512) / 1024 ))
                printf '%d.%02d\n' $((h / 100)) $((h % 100))
        fi
}

# 2,000 short processes (qos-fork-storm) while qosd is stopped: a small
# queue (--receive-buffer 4096) overflows and events are lost.
overflow_queue() {
        "$QOS_FORK_STORM" 2000 >"$TEST_TMP/storm.out" &
        local s=$!
        on_exit "kill -KILL $s"
        wait_for grep -qx done "$TEST_TMP/storm.out" || fail "storm did not finish"
        kill -KILL "$s"
        wait "$s" 2>/dev/null || true
}
