#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Lending on plain pthread mutexes under the preload (no qosd, as root:
# applied directly). An unmodified program whose threads a rule names
# bg-* (background) and ui-* (user-interactive):
#  - a ui thread waiting on a mutex a bg thread holds raises the holder to
#    user-interactive, and the holder reads its own background settings
#    back right after its unlock (or the pthread_cond_timedwait() that
#    released it), for every type lent on; PI and process-shared mutexes
#    are left alone; every loan is counted and ended;
#  - a loan goes on along a chain of holders, a second waiter's loan
#    outlives the first's, and a condition variable's waiter lends to the
#    signaller holding the mutex it must take again;
#  - the uncontended path makes no system call and lends nothing;
#  - glibc's results (every type, EDEADLK, EBUSY, EOWNERDEAD, condition
#    variables with spurious wake-ups, fork() with locks held) are the
#    same plain and preloaded, and with lending switched off;
#  - a stress run keeps its counts and ends every loan it made (how many
#    depends on timing: the cases above are the ones that must lend) (under ASan and
#    UBSan when meson runs this from build-asan).
source "$(dirname "$0")/lib.sh"
require_root
qosd_root_init
: "${QOS_PLAIN_MUTEX:?}" "${QOS_MUTEX_SEMANTICS:?}"

PLAIN=$QOSD_BIN/qos-plain-mutex
SEM=$QOSD_BIN/qos-mutex-semantics
cp "$QOS_PLAIN_MUTEX" "$PLAIN"
cp "$QOS_MUTEX_SEMANTICS" "$SEM"
write_rule plain "$PLAIN" - "ui-*" user-interactive "bg-*" background
write_rule sem "$SEM" - "ui-*" user-interactive "bg-*" background
LOG=$TEST_TMP/preload.log
pre=(env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT" "QOS_PRELOAD_DEBUG=$LOG")
t_ui=$(class_triple user-interactive)
t_bg=$(class_triple background)

# Loans begun and ended in $LOG; every one begun must have ended.
loans() { grep -c "lend tid=.*: lent" "$LOG" || true; }
ends() { grep -c "loan end " "$LOG" || true; }
all_ended() { # what
        assert_eq "$(ends)" "$(loans)" "$1: loans ended"
}

: >"$LOG"
"${pre[@]}" "$PLAIN" uncontended 1 >/dev/null
grep -q "lending: on" "$LOG" || fail "lending is not on: $(cat "$LOG")"

for how in unlock cond; do
        for type in normal recursive errorcheck robust; do
                : >"$LOG"
                out=$("${pre[@]}" "$PLAIN" lend "$type" "$how")
                assert_eq "$(grep '^waiter' <<<"$out")" "waiter lock 0" "$type/$how: the waiter got it"
                assert_eq "$(grep '^base' <<<"$out")" "base $t_bg" "$type/$how: the holder before"
                assert_eq "$(grep '^lent' <<<"$out")" "lent $t_ui" "$type/$how: the holder while waited on"
                assert_eq "$(grep '^after' <<<"$out")" "after $t_bg" "$type/$how: the holder after releasing"
                assert_eq "$(loans)" 1 "$type/$how: loans"
                # A condition wait ends the loan before glibc releases the
                # mutex: the holder's. After an unlock the holder and the
                # woken waiter race to end it, and either may (the chain
                # case below has the holder's unlock alone end a loan).
                [ "$how" = unlock ] || grep -q "loan end .* by=holder: ended" "$LOG" ||
                        fail "$type/$how: not ended by the holder: $(cat "$LOG")"
                all_ended "$type/$how"
        done
done
ok "a user-interactive waiter raises a background holder until the release, on every type lent on"

for type in pi pshared; do
        : >"$LOG"
        out=$("${pre[@]}" "$PLAIN" lend "$type" unlock 300)
        assert_eq "$(grep '^lent' <<<"$out")" "lent $t_bg" "$type: the holder keeps its class"
        assert_eq "$(loans)" 0 "$type: loans"
done
ok "PI and process-shared mutexes are left to glibc and the kernel"

# bg-middle holds m1 and waits on m2, which bg-tail holds; ui-waiter then
# waits on m1: bg-tail is lent to along the chain, and each loan ends at
# its holder's unlock.
: >"$LOG"
out=$("${pre[@]}" "$PLAIN" chain)
assert_eq "$(grep '^tail-base' <<<"$out")" "tail-base $t_bg" "chain: the tail before"
assert_eq "$(grep '^tail-lent' <<<"$out")" "tail-lent $t_ui" "chain: the tail, waited on through the middle"
assert_eq "$(grep '^tail-after' <<<"$out")" "tail-after $t_bg" "chain: the tail after its unlock"
assert_eq "$(grep '^middle-lent' <<<"$out")" "middle-lent $t_ui" "chain: the middle, holding both"
assert_eq "$(grep '^middle-after' <<<"$out")" "middle-after $t_bg" "chain: the middle after its unlocks"
assert_eq "$(grep '^waiter' <<<"$out")" "waiter lock 0" "chain: the waiter got it"
assert_eq "$(grep -c "(along the chain): lent" "$LOG")" 1 "chain: loans along the chain"
# The waiter still waits on m1 when the tail releases m2: only the tail's
# unlock can have ended that loan.
tail_tid=$(sed -n 's/.*lend tid=[0-9]* to=\([0-9]*\) class=[a-z-]* (along the chain): lent/\1/p' "$LOG")
grep -q "loan end tid=[0-9]* to=$tail_tid by=holder: ended" "$LOG" ||
        fail "chain: the tail's unlock did not end its loan: $(grep -E 'lend|loan' "$LOG")"
assert_eq "$(loans)" 2 "chain: loans"
all_ended chain
ok "a loan reaches the holder of the lock its owner waits on"

# Two user-interactive waiters; the first gives up (timedlock): the
# holder stays raised by the second's loan until its unlock.
: >"$LOG"
out=$("${pre[@]}" "$PLAIN" second)
assert_eq "$(grep '^lent' <<<"$out")" "lent $t_ui" "second: the holder raised by the first"
assert_eq "$(grep '^first' <<<"$out")" "first lock ETIMEDOUT" "second: the first gave up"
assert_eq "$(grep '^still' <<<"$out")" "still $t_ui" "second: the holder once the first gave up"
assert_eq "$(grep '^after' <<<"$out")" "after $t_bg" "second: the holder after its unlock"
assert_eq "$(grep '^second' <<<"$out")" "second lock 0" "second: the second got it"
assert_eq "$(loans)" 2 "second: loans"
all_ended second
ok "a second waiter lends to a holder another waiter raised, and its loan outlives the first's"

# glibc takes the mutex back inside pthread_cond_wait(): the waiter's class
# reaches the signaller that holds it, from the signal to the unlock.
for how in signal broadcast; do
        : >"$LOG"
        out=$("${pre[@]}" "$PLAIN" signal "$how")
        assert_eq "$(grep '^base' <<<"$out")" "base $t_bg" "$how: the signaller before"
        assert_eq "$(grep '^lent' <<<"$out")" "lent $t_ui" "$how: the signaller, holding the waiter's mutex"
        assert_eq "$(grep '^after' <<<"$out")" "after $t_bg" "$how: the signaller after its unlock"
        assert_eq "$(grep '^waiter' <<<"$out")" "waiter unlock 0" "$how: the waiter woke with the mutex"
        assert_eq "$(grep -c "(waiting on a condition): lent" "$LOG")" 1 "$how: loans"
        all_ended "$how"
done
ok "a condition variable's waiter lends to the signaller holding its mutex, until the unlock"

# No system call between the two markers: strace lists none. 100,000
# rounds of lock/unlock and trylock/unlock on every type lent on.
if command -v strace >/dev/null; then
        : >"$LOG"
        # LeakSanitizer cannot run under ptrace (the ASan build).
        "${pre[@]}" ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$TEST_TMP/strace" "$PLAIN" uncontended 100000 \
                >"$TEST_TMP/unc.out"
        assert_eq "$(tail -n 1 "$TEST_TMP/unc.out")" "settings unchanged" "uncontended: settings"
        grep -q 'write(1, "begin' "$TEST_TMP/strace" && grep -q 'write(1, "end' "$TEST_TMP/strace" ||
                fail "the markers are not in strace's output"
        between=$(sed -n '/write(1, "begin/,/write(1, "end/p' "$TEST_TMP/strace" | sed '1d;$d')
        [ -z "$between" ] || fail "system calls on the uncontended path: $between"
        assert_eq "$(loans)" 0 "uncontended: loans"
        ok "the uncontended path makes no system call and lends nothing"
else
        echo "strace not installed: the uncontended path's system calls are not counted"
fi

for part in mutex cond fork; do
        "$SEM" "$part" >"$TEST_TMP/sem-plain.$part" || fail "qos-mutex-semantics $part failed plainly"
        : >"$LOG"
        "${pre[@]}" "$SEM" "$part" >"$TEST_TMP/sem-pre.$part" || fail "qos-mutex-semantics $part failed preloaded"
        diff -u "$TEST_TMP/sem-plain.$part" "$TEST_TMP/sem-pre.$part" >&2 || fail "$part: glibc's results differ"
        # The mutex cases wait on bg-holder from ui-check: lending cases too.
        [ "$part" != mutex ] || [ "$(loans)" -gt 10 ] || fail "$part: too few loans ($(loans))"
        all_ended "semantics $part"
        "${pre[@]}" QOS_PRELOAD_LEND=0 "$SEM" "$part" >"$TEST_TMP/sem-off.$part"
        diff -u "$TEST_TMP/sem-plain.$part" "$TEST_TMP/sem-off.$part" >&2 || fail "$part: differs with lending off"
done
grep -q "lending: off (QOS_PRELOAD_LEND=0)" "$LOG" || fail "QOS_PRELOAD_LEND=0 not reported"
ok "glibc's results are the same plain, preloaded and with lending off ($(wc -l <"$TEST_TMP/sem-plain.mutex") mutex lines)"

: >"$LOG"
out=$("${pre[@]}" "$PLAIN" stress 1000)
assert_eq "$out" "stress total 6000 expected 6000" "stress"
all_ended stress
ok "stress: counts kept, $(loans) loans, all ended"
