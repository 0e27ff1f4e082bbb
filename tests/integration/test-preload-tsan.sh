#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The mutex interposer under ThreadSanitizer: the test programs of
# test-preload-lend.sh built with -fsanitize=thread, run preloaded, so that
# every lock goes TSan's interceptor -> libqos-preload.so -> glibc. No
# report from TSan; the stress run keeps its counts and ends every loan;
# glibc's results (every type, EDEADLK, EBUSY, EOWNERDEAD, condition
# variables, fork() with locks held) are the same as plain.
#
# The preload is not instrumented, so TSan cannot see its own locks; the
# suppression file (tests/data/tsan-preload.supp) tells TSan to ignore what
# the library does itself, as its manual says to do for an uninstrumented
# library, while the program's locks stay fully checked.
source "$(dirname "$0")/lib.sh"
require_root
if [ -z "${QOS_PLAIN_MUTEX_TSAN:-}" ]; then
        echo "SKIP: $TEST_NAME: this build has no ThreadSanitizer programs (a sanitizer build, or no -fsanitize=thread)"
        exit 77
fi
qosd_root_init

PLAIN=$QOSD_BIN/qos-plain-mutex-tsan
SEM=$QOSD_BIN/qos-mutex-semantics-tsan
cp "$QOS_PLAIN_MUTEX_TSAN" "$PLAIN"
cp "$QOS_MUTEX_SEMANTICS_TSAN" "$SEM"
write_rule plain "$PLAIN" - "ui-*" user-interactive "bg-*" background
write_rule sem "$SEM" - "ui-*" user-interactive "bg-*" background
LOG=$TEST_TMP/preload.log
# TSan's runtime first, as it must be, then the preload.
tsan=$(ldd "$PLAIN" | awk '/libtsan/ { print $3 }')
[ -n "$tsan" ] || fail "no libtsan in $(ldd "$PLAIN")"
tsan_options="suppressions=$QOS_SOURCE_ROOT/tests/data/tsan-preload.supp halt_on_error=1 exitcode=66"
preloaded() { # command... (under the TSan options of the moment)
        env "LD_PRELOAD=$tsan:$QOS_PRELOAD" "QOS_ROOT=$QOSD_ROOT" "QOS_PRELOAD_DEBUG=$LOG" \
                "TSAN_OPTIONS=$tsan_options" "$@"
}

loans() { grep -c "lend tid=.*: lent" "$LOG" || true; }
ends() { grep -c "loan end " "$LOG" || true; }
no_reports() { # file what
        ! grep -q "ThreadSanitizer" "$1" || fail "$2: $(grep -A20 -m1 ThreadSanitizer "$1")"
}

: >"$LOG"
preloaded "$PLAIN" stress 1000 >"$TEST_TMP/stress" 2>&1 || fail "stress exited $?: $(tail -n 20 "$TEST_TMP/stress")"
no_reports "$TEST_TMP/stress" stress
assert_eq "$(tail -n 1 "$TEST_TMP/stress")" "stress total 6000 expected 6000" "stress under TSan"
grep -q "lending: on" "$LOG" || fail "lending is not on: $(head -n 5 "$LOG")"
[ "$(loans)" -gt 0 ] || fail "no loans in the stress run"
assert_eq "$(ends)" "$(loans)" "stress: loans ended"
ok "stress under TSan: counts kept, $(loans) loans, all ended, no report"

# The semantics program unlocks mutexes it does not hold and the like on
# purpose (glibc's EPERM and EOWNERDEAD are what it checks): TSan's reports
# of mutex misuse are off for it, its race reports are not.
tsan_options+=" report_mutex_bugs=0"
for part in mutex cond fork; do
        TSAN_OPTIONS=$tsan_options "$SEM" "$part" >"$TEST_TMP/sem-plain.$part" 2>"$TEST_TMP/sem-plain.$part.err" ||
                fail "qos-mutex-semantics $part failed plainly: $(tail "$TEST_TMP/sem-plain.$part.err")"
        : >"$LOG"
        preloaded "$SEM" "$part" >"$TEST_TMP/sem-pre.$part" 2>"$TEST_TMP/sem-pre.$part.err" ||
                fail "qos-mutex-semantics $part failed preloaded: $(tail "$TEST_TMP/sem-pre.$part.err")"
        no_reports "$TEST_TMP/sem-pre.$part.err" "semantics $part"
        diff -u "$TEST_TMP/sem-plain.$part" "$TEST_TMP/sem-pre.$part" >&2 || fail "$part: glibc's results differ under TSan"
        [ "$part" != mutex ] || [ "$(loans)" -gt 10 ] || fail "$part: too few loans ($(loans))"
        assert_eq "$(ends)" "$(loans)" "semantics $part: loans ended"
done
ok "glibc's results under TSan are the same plain and preloaded ($(wc -l <"$TEST_TMP/sem-plain.mutex") mutex lines)"
