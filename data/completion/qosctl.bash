# bash completion for qosctl(1)                              -*- shell-script -*-
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installed as "qosctl" in bash-completion's completionsdir, so bash-completion
# loads it the first time qosctl is completed.
# shellcheck disable=SC2207 # COMPREPLY=($(compgen ...)): bash-completion's idiom; no word has a blank

# The names cli_parse_class() takes that qosctl --help shows; the further
# aliases (interactive, initiated, ...) stay out so a <TAB> lists each class
# once with its short form.
_qosctl_classes='user-interactive ui user-initiated in utility ut default background bg'

_qosctl()
{
    local cur prev words cword split=false
    if declare -F _comp_initialize >/dev/null; then
        # bash-completion 2.12 and later
        # shellcheck disable=SC2034 # set by _comp_initialize
        local was_split comp_args
        _comp_initialize -s -- "$@" || return
        [[ $was_split ]] && split=true
    else
        _init_completion -s || return
    fi

    local commands='classes run set get check import ps explain status reload profile foreground top'

    # The subcommand is the first word that is neither a global option nor
    # the argument of -R/--root.
    local i cmd='' cmd_at=0
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -R | --root) ((i++)) ;;
            -*) ;;
            *)
                cmd=${words[i]} cmd_at=$i
                break
                ;;
        esac
    done

    if [[ ! $cmd ]]; then
        case $prev in
            -R | --root)
                _filedir -d
                return
                ;;
        esac
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '-R --root -h --help -V --version' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    # An option's argument, wherever it follows (--opt=value is split by
    # _init_completion -s into prev=--opt, cur=value).
    case $prev in
        -c | --class)
            COMPREPLY=($(compgen -W "$_qosctl_classes" -- "$cur"))
            return
            ;;
        -p | --pid)
            _pids
            return
            ;;
        -s | --sort)
            [[ $cmd == top ]] && COMPREPLY=($(compgen -W 'wait cpu' -- "$cur"))
            return
            ;;
        -U | --user-dir | --sys)
            _filedir -d
            return
            ;;
        -n | --iterations | -d | --delay | -f | --find)
            [[ $cmd == top ]] && return
            ;;
    esac
    $split && return

    # The first operand after the subcommand's options (0: none yet).
    local first=0
    for ((i = cmd_at + 1; i < cword; i++)); do
        case ${words[i]} in
            -c | --class | -p | --pid | -U | --user-dir | --sys | -n | --iterations | -d | --delay | -s | --sort)
                ((i++))
                ;;
            -*) ;;
            *)
                first=$i
                break
                ;;
        esac
    done

    # run stops at its first operand (getopt "+"): from there on the words
    # are a command line of their own, completed as that command's.
    if [[ $cmd == run ]] && ((first)); then
        _command_offset "$first"
        return
    fi

    if [[ $cur == -* ]]; then
        local opts
        case $cmd in
            classes) opts='--sys -h --help' ;;
            status | reload | explain | profile) opts='-h --help' ;;
            run) opts='-c --class -P --preload -v --verbose -h --help' ;;
            set) opts='-c --class -p --pid -a --all-tasks -v --verbose -h --help' ;;
            get) opts='-p --pid -a --all-tasks -h --help' ;;
            check) opts='-e --effective -u --user -U --user-dir -h --help' ;;
            import) opts='-f --force -h --help' ;;
            ps) opts='-a --all -p --pid -h --help' ;;
            top) opts='-b --batch -n --iterations -d --delay -s --sort -a --all -k --kernel -f --find -p --pid -h --help' ;;
            foreground) opts='--clear --auto -h --help' ;;
            *) return ;;
        esac
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi

    # Operands.
    case $cmd in
        run) _command_offset "$cword" ;;
        check) _filedir ;;
        import)
            if ((first)); then
                _filedir -d
            else
                COMPREPLY=($(compgen -W 'ananicy' -- "$cur"))
            fi
            ;;
        explain) ((first)) || _pids ;;
        foreground) _pids ;;
        profile) ((first)) || COMPREPLY=($(compgen -W 'throughput interactive qos default' -- "$cur")) ;;
    esac
} &&
    complete -F _qosctl qosctl

# ex: filetype=sh
