#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every option a program's --help shows is in its man page, and every
# option the page shows is one the program has: qosd, qosctl and each of
# its commands, qos-focus, and scx_qos where it is built. The page's
# OPTIONS (for qosctl's commands: the list below each command in
# COMMANDS) names exactly the --help's options; its SYNOPSIS shows only
# options the program has and every one but --help and --version. The
# preload library has no options: the variables it reads are its
# ENVIRONMENT. Only --help is run: no root, no daemon.
set -uo pipefail

: "${QOS_SOURCE_ROOT:?}" "${QOSD:?}" "${QOSCTL:?}"
# shellcheck source=tests/unit/option-lists.sh
. "$QOS_SOURCE_ROOT/tests/unit/option-lists.sh"
man=$QOS_SOURCE_ROOT/man

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# drop NAME... <ENTRIES: the entries without these names (an entry left
# with none goes).
drop() {
        awk -v drop=" $* " '{
                out = ""
                for (i = 1; i <= NF; i++)
                        if (!index(drop, " " $i " "))
                                out = out (out == "" ? "" : " ") $i
                if (out != "")
                        print out
        }'
}

# scoped KIND SCOPE <MAN_ENTRIES: the names of that kind and scope, an
# entry a line.
scoped() {
        awk -v kind="$1" -v scope="$2" '$1 == kind && $2 == scope { $1 = $2 = ""; sub(/^ +/, ""); print }'
}

# help_of WHAT CMD...: CMD's --help on stdout (it must exit 0 and print).
help_of() {
        local what=$1 out rc=0
        shift
        out=$("$@" --help 2>&1) || rc=$?
        [ "$rc" = 0 ] || fail "$what: --help exited $rc"
        [ -n "$out" ] || fail "$what: --help printed nothing"
        printf '%s\n' "$out"
}

# compare WHAT PAGE WHERE HELP OPTS SYN: HELP, the entries of --help; OPTS,
# the page's list for it (WHERE says which); SYN, its synopsis.
compare() {
        local what=$1 page=$2 where=$3 help=$4 opts=$5 syn=$6 n entry
        while read -r n; do
                fail "$what: --help shows $n; $page lacks it in $where"
        done < <(comm -23 <(names <<<"$help") <(names <<<"$opts"))
        while read -r n; do
                fail "$what: $page documents $n in $where; the program has no such option"
        done < <(comm -13 <(names <<<"$help") <(names <<<"$opts"))
        while read -r n; do
                fail "$what: $page's SYNOPSIS shows $n; the program has no such option"
        done < <(comm -13 <(names <<<"$help") <(names <<<"$syn"))
        while read -r entry; do
                [ -n "$entry" ] || continue
                comm -12 <(names <<<"$entry") <(names <<<"$syn") | grep -q . ||
                        fail "$what: $page's SYNOPSIS lacks ${entry%% *}"
        done < <(drop -h --help -V --version <<<"$help")
}

# A program with one option list: its page's OPTIONS and SYNOPSIS.
check_program() { # name page cmd...
        local name=$1 page=$2 help entries
        shift 2
        help=$(help_of "$name" "$@" | help_entries)
        entries=$(man_entries "$name" <"$man/$page")
        compare "$name" "$page" OPTIONS "$help" "$(scoped opt - <<<"$entries")" "$(scoped syn - <<<"$entries")"
}

# qosctl: the global options, then each command its own list.
check_qosctl() {
        local page=qosctl.1 entries commands c help
        entries=$(man_entries qosctl <"$man/$page")
        help=$(help_of qosctl "$QOSCTL")
        commands=$(help_commands <<<"$help" | sort)
        [ -n "$commands" ] || fail "qosctl --help lists no commands"
        compare qosctl "$page" OPTIONS "$(help_entries <<<"$help")" \
                "$(scoped opt - <<<"$entries")" "$(scoped syn - <<<"$entries")"
        while read -r c; do
                fail "qosctl --help lists the command $c; $page has no such entry in COMMANDS"
        done < <(comm -23 <(echo "$commands") <(awk '$1 == "cmd" { print $2 }' <<<"$entries" | sort -u))
        while read -r c; do
                fail "$page documents the command $c; qosctl --help does not list it"
        done < <(comm -13 <(echo "$commands") <(awk '$1 == "cmd" { print $2 }' <<<"$entries" | sort -u))
        # Every command takes -h, --help, documented once with the global
        # options; its own list is the rest.
        for c in $commands; do
                help=$(help_of "qosctl $c" "$QOSCTL" "$c" | help_entries "$c" | drop -h --help)
                compare "qosctl $c" "$page" "the options below '$c' in COMMANDS" "$help" \
                        "$(scoped opt "$c" <<<"$entries")" "$(scoped syn "$c" <<<"$entries")"
        done
}

# The preload library has no --help and no options; the environment
# variables it reads are what its page lists (HOME named in the text).
check_preload() {
        local page=libqos-preload.8 entries v
        entries=$(man_entries libqos-preload <"$man/$page")
        grep -q '^opt ' <<<"$entries" && fail "$page lists options; the library has none"
        local read_vars listed
        read_vars=$(grep -ho 'getenv("[A-Za-z_0-9]*")' "$QOS_SOURCE_ROOT"/src/preload/*.c |
                sed 's/.*("\(.*\)")/\1/' | sort -u)
        listed=$(awk '$1 == "env" { print $2 }' <<<"$entries" | sort -u)
        [ -n "$read_vars" ] || fail "no getenv() found in src/preload"
        while read -r v; do
                grep -qw -- "$v" "$man/$page" || fail "libqos-preload reads \$$v; $page does not mention it"
        done < <(comm -23 <(echo "$read_vars") <(echo "$listed"))
        while read -r v; do
                fail "$page lists \$$v in ENVIRONMENT; the library does not read it"
        done < <(comm -13 <(echo "$read_vars") <(echo "$listed") | sed '/^$/d')
}

check_program qosd qosd.8 "$QOSD"
check_qosctl
if [ -n "${QOS_FOCUS:-}" ]; then
        check_program qos-focus qos-focus.1 "$QOS_FOCUS"
else
        echo "qos-focus: not built (no X11 libraries); its page not compared"
fi
# scx_qos needs a kernel with sched_ext to build (meson's -Dscx, make kernel-ext).
scx=${QOS_SCX_LOADER:-$QOS_SOURCE_ROOT/build-kernels/ext/current/scx/scx_qos}
if [ -x "$scx" ]; then
        check_program scx_qos scx_qos.8 "$scx"
else
        echo "scx_qos: not built at $scx; its page not compared"
fi
check_preload

# A new program's page must get its check here.
for p in "$man"/*.[18]; do
        case ${p##*/} in
        qosd.8 | qosctl.1 | qos-focus.1 | scx_qos.8 | libqos-preload.8) ;;
        *) fail "${p##*/}: a program's page that this test does not compare" ;;
        esac
done

if ((failures)); then
        echo "$failures difference(s) between the programs and their man pages" >&2
        exit 1
fi
echo "every option in --help is in the man pages, and no other"
