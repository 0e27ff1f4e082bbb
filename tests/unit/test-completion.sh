#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosctl's bash completion, run inside bash-completion's own framework: the
# command lines a user types, as bash would hand them to the completion
# function, and the words offered back. Also: every subcommand in qosctl.c's
# command table is completed, so a new subcommand without completion fails
# here, and each one's options are the ones its --help shows. No root
# needed.
set -uo pipefail

: "${QOS_SOURCE_ROOT:?}"
completion=${QOS_COMPLETION:-$QOS_SOURCE_ROOT/data/completion/qosctl.bash}
framework=${BASH_COMPLETION_FRAMEWORK:-/usr/share/bash-completion/bash_completion}
if [[ ! -r $framework ]]; then
        echo "SKIP: no bash-completion framework at $framework (Debian: bash-completion)"
        exit 77
fi

# bash_completion is written for interactive shells; it only needs
# programmable completion, which a script has too.
shopt -s progcomp extglob
# shellcheck disable=SC1090
. "$framework" || { echo "FAIL: cannot load $framework" >&2; exit 1; }
# shellcheck disable=SC1090
. "$completion" || { echo "FAIL: cannot load $completion" >&2; exit 1; }

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
oneline() { tr '\n' ' ' <<<"$1" | sed 's/ $//'; }

# complete LINE: what <TAB> at the end of LINE offers, sorted, one a line.
complete_line() {
        local line=$1
        read -r -a COMP_WORDS <<<"$line"
        [[ $line == *' ' ]] && COMP_WORDS+=('')
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE=$line
        COMP_POINT=${#line}
        COMPREPLY=()
        # compopt complains outside a real completion; what it would set
        # (e.g. -o filenames) is not what is checked here.
        _qosctl qosctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]:-}" 2>/dev/null
        printf '%s\n' "${COMPREPLY[@]}" | sort -u | sed '/^$/d'
}

# expect LINE WORD...: the offer is exactly these words.
expect() {
        local line=$1 got want
        shift
        got=$(complete_line "$line")
        want=$(printf '%s\n' "$@" | sort -u)
        [[ $got == "$want" ]] || fail "'$line<TAB>': got [$(oneline "$got")], want [$(oneline "$want")]"
}

# contains LINE WORD...: the offer includes these words.
contains() {
        local line=$1 got w
        shift
        got=$(complete_line "$line")
        for w in "$@"; do
                grep -qxF -- "$w" <<<"$got" || fail "'$line<TAB>' lacks $w: got [$(oneline "$got" | cut -c1-200)]"
        done
}

commands=(classes run set get check import ps explain status reload profile foreground top)
classes=(user-interactive ui user-initiated in utility ut default background bg)

expect 'qosctl ' "${commands[@]}"
expect 'qosctl s' set status
expect 'qosctl --' --root --help --version
expect 'qosctl -R /tmp s' set status
expect 'qosctl run -c ' "${classes[@]}"
expect 'qosctl run --class=u' user-interactive ui user-initiated utility ut
expect 'qosctl set -c b' background bg
expect 'qosctl set -' -c --class -p --pid -a --all-tasks -v --verbose -h --help
expect 'qosctl get -' -p --pid -a --all-tasks -h --help
expect 'qosctl run -' -c --class -P --preload -v --verbose -h --help
expect 'qosctl top -s ' wait cpu
expect 'qosctl top --' --batch --iterations --delay --sort --all --kernel --find --pid --help
expect 'qosctl ps -' -a --all -p --pid -h --help
expect 'qosctl check -' -e --effective -u --user -U --user-dir -h --help
expect 'qosctl profile ' throughput interactive qos default
expect 'qosctl profile qos ' # one profile at most
expect 'qosctl import ' ananicy
expect 'qosctl import --' --force --help
expect 'qosctl import -' -f --force -h --help
expect 'qosctl foreground --' --auto --clear --help
contains 'qosctl get -p ' $$
contains 'qosctl explain ' $$
contains 'qosctl foreground 1 ' $$
contains 'qosctl run -c bg ec' echo
contains 'qosctl run ec' echo

# After run's options, the command's own completion: bash-completion's
# completion for this command (here: qosctl itself, known without a file
# lookup) is what runs.
expect 'qosctl run -c bg qosctl s' set status
expect 'qosctl run -v qosctl set -c b' background bg
expect 'qosctl run qosctl --' --root --help --version
expect 'qosctl explain 1 ' # one PID at most

# Directories after --root, --user-dir and import's operands.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/rules.d"
touch "$dir/rules.txt"
expect "qosctl -R $dir/r" "$dir/rules.d"
expect "qosctl import ananicy $dir/r" "$dir/rules.d"
contains "qosctl check $dir/r" "$dir/rules.d" "$dir/rules.txt"

# Every command of qosctl's table, read from the source, is offered.
table=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", cmd_[a-z_]*,.*/\1/p' "$QOS_SOURCE_ROOT/src/cli/qosctl.c")
[[ $table ]] || fail "no command table found in src/cli/qosctl.c"
offered=$(complete_line 'qosctl ')
for c in $table; do
        grep -qxF -- "$c" <<<"$offered" || fail "subcommand '$c' of qosctl.c is not completed"
done

# Every class name qosctl shows in its help (qclass.c) is offered after -c.
names=$(sed -n 's/.*return "\(user-interactive (ui).*\)";/\1/p' "$QOS_SOURCE_ROOT/src/core/qclass.c" | tr -d '(),')
[[ $names ]] || fail "no class names found in src/core/qclass.c"
offered=$(complete_line 'qosctl set -c ')
for c in $names; do
        grep -qxF -- "$c" <<<"$offered" || fail "class name '$c' of qclass.c is not completed"
done

# Every command's options, as its --help shows them, are offered after
# '-' (and -h, --help, which every command takes), and no others.
if [[ ${QOSCTL:-} ]]; then
        # shellcheck source=tests/unit/option-lists.sh
        . "$QOS_SOURCE_ROOT/tests/unit/option-lists.sh"
        for c in $("$QOSCTL" --help | help_commands); do
                want=$( { "$QOSCTL" "$c" --help | help_entries "$c"; echo -h --help; } | names)
                got=$(complete_line "qosctl $c -")
                [[ $got == "$want" ]] ||
                        fail "'qosctl $c -<TAB>': got [$(oneline "$got")], --help shows [$(oneline "$want")]"
        done
else
        echo "QOSCTL not set: the options offered are not compared with --help"
fi

if ((failures)); then
        echo "$failures completion check(s) failed" >&2
        exit 1
fi
echo "all completion checks passed"
