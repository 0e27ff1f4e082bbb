# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the tests that compare option lists: what a program's --help
# and its man page say it takes. An "entry" is one option with its names,
# on one line: "-c --class".

# The option names in s ("-x", "--long"), for both awk programs below.
awk_names='
        function names(s,   a, n, i, t, out) {
                gsub(/[][|,]/, " ", s)
                n = split(s, a, /[ \t]+/)
                for (i = 1; i <= n; i++) {
                        t = a[i]
                        sub(/=.*/, "", t)
                        if (t ~ /^-[A-Za-z0-9]$/ || t ~ /^--[A-Za-z0-9][A-Za-z0-9-]*$/)
                                out = out (out == "" ? "" : " ") t
                }
                return out
        }'

# help_entries [COMMAND] <HELP: the options of a --help text, one entry a
# line: its option lines ("  -c, --class CLASS  text", the names before
# the first two blanks), and what its usage lines show after COMMAND (or
# after the program's name), e.g. "--clear" of "qosctl foreground --clear".
help_entries() {
        awk -v cmd="${1:-}" "$awk_names"'
        function usage_line(s,   i, t, n, a) {
                if (cmd != "") {
                        i = index(s " ", " " cmd " ")
                        if (!i)
                                return
                        s = substr(s, i + length(cmd) + 1)
                } else
                        sub(/^[ \t]*[^ \t]+/, "", s)
                n = split(names(s), a, " ")
                for (i = 1; i <= n; i++)
                        print a[i]
        }
        /^Usage:/ { in_usage = 1; s = $0; sub(/^Usage:/, "", s); usage_line(s); next }
        in_usage && /^[ \t]+[a-z]/ { usage_line($0); next }
        { in_usage = 0 }
        /^[ \t]+-/ {
                s = $0
                sub(/^[ \t]+/, "", s)
                i = index(s, "  ")
                if (i)
                        s = substr(s, 1, i - 1)
                s = names(s)
                if (s != "")
                        print s
        }'
}

# help_commands <HELP: the first word of each line of a "Commands:" list.
help_commands() {
        awk '/^Commands:/ { on = 1; next } on && /^[ \t]*$/ { on = 0 } on { print $1 }'
}

# man_entries PROGRAM <PAGE: what a man page (roff source) shows, one line
# each:
#   opt SCOPE NAME...   a tag of the OPTIONS section (SCOPE "-"), or of a
#                       list indented (.RS) below a command of COMMANDS
#                       (SCOPE: the command)
#   syn SCOPE NAME...   options in the SYNOPSIS ("PROGRAM COMMAND ..."
#                       lines: SCOPE COMMAND, else "-"), and in a tag of
#                       COMMANDS itself ("run [-c CLASS] ...": SCOPE run)
#   cmd NAME            a command of COMMANDS
#   env NAME            a tag of the ENVIRONMENT section
man_entries() {
        awk -v prog="$1" "$awk_names"'
        function plain(s) {
                gsub(/\\-/, "-", s)
                gsub(/\\f(\(..|\[[^]]*\]|.)/, "", s)
                gsub(/\\[&|^]/, "", s)
                gsub(/"/, " ", s)
                sub(/^\.[A-Za-z]+[ \t]*/, "", s)
                return s
        }
        function emit(kind, scope, s) {
                s = names(s)
                if (s != "")
                        print kind, scope, s
        }
        /^\.\\"/ { next }
        /^\.SH/ { section = plain($0); gsub(/^[ \t]+|[ \t]+$/, "", section); depth = 0; tag = 0; scope = "-"; next }
        /^\.RS/ { depth++; next }
        /^\.RE/ { if (depth > 0) depth--; next }
        /^\.(TP|TQ)/ { tag = 1; next }
        section == "SYNOPSIS" {
                s = plain($0)
                if ($0 ~ /^\.B[ \t]/ && index(s, prog) == 1) {
                        s = substr(s, length(prog) + 1)
                        split(s, w, /[ \t]+/)
                        scope = w[2] != "" && w[2] !~ /^[-[]/ ? w[2] : "-"
                        if (scope != "-")
                                sub("^[ \t]*" scope, "", s)
                }
                emit("syn", scope, s)
                next
        }
        !tag { next }
        { tag = 0; s = plain($0) }
        section == "OPTIONS" { emit("opt", "-", s) }
        section == "ENVIRONMENT" { split(s, w, /[ \t]+/); if (w[1] != "") print "env", w[1] }
        section == "COMMANDS" && depth == 0 {
                split(s, w, /[ \t]+/)
                scope = w[1]
                print "cmd", scope
                emit("syn", scope, substr(s, length(scope) + 1))
        }
        section == "COMMANDS" && depth > 0 { emit("opt", scope, s) }'
}

# names <ENTRIES: every name of the entries, one a line, sorted.
names() {
        tr ' ' '\n' | sed '/^$/d' | sort -u
}
