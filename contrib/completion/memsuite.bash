# Bash completion for memsuite, stream, stream_mpi, mbw and mencal.
#
# Installed as PREFIX/share/bash-completion/completions/memsuite, with a
# link of that name for each tool (bash-completion loads a file by the
# command's name); or source it from ~/.bashrc.
#
# The options come from each command's own --help (memsuite: `memsuite
# help CMD`), read once per shell and cached, so completion follows the
# installed version without a list to keep in step.  Option values:
# "(one of a|b|c)" in the help, or "--opt a|b|c" in its option column;
# file and directory names where the value is a path.
#
# Entry points (set as the completion functions below):
#   _memsuite_complete, _memsuite_complete_tool (stream, stream_mpi, mbw),
#   _memsuite_complete_mencal.  Each fills COMPREPLY from COMP_WORDS and
#   COMP_CWORD only, so tests can call them directly.

declare -gA _memsuite_help_cache=()

# _memsuite_help CMD... -> the help text of CMD... (cached per command line)
_memsuite_help() {
    local key="$*"
    if [ -z "${_memsuite_help_cache[$key]+x}" ]; then
        _memsuite_help_cache[$key]=$("$@" 2>&1 </dev/null)
    fi
    printf '%s\n' "${_memsuite_help_cache[$key]}"
}

# _memsuite_opts_of CMD... -> every option the help names, one per line:
# long ones in the Usage block and in the option column of option lines
# (lines starting with "-" whose text before the first double blank is
# only options and metavariables: prose is skipped), short ones at the
# start of an option line.  tests/bats/help-options.awk is the same rule.
_memsuite_opts_of() {
    _memsuite_help "$@" | awk '
        function longs(s) {
            while (match(s, /--[a-zA-Z][a-zA-Z0-9-]*/)) {
                print substr(s, RSTART, RLENGTH)
                s = substr(s, RSTART + RLENGTH)
            }
        }
        /^Usage:/ { usage = 1 }
        usage && NF == 0 { usage = 0 }
        usage { longs($0) }
        /^[ \t]*-/ {
            col = $0
            sub(/^[ \t]+/, "", col)
            if (match(col, /(  |\t)/)) col = substr(col, 1, RSTART - 1)
            if (match(col, /^-[a-zA-Z0-9]([ ,:0-9]|$)/)) print substr(col, 1, 2)
            n = split(col, w, / +/)
            ok = 1
            for (i = 1; i <= n; i++)
                if (w[i] !~ /^-/ && w[i] !~ /^\[/ && w[i] !~ /^"?[A-Z]/ && w[i] !~ /\|/) ok = 0
            if (ok && !usage) longs(col)
        }' | sort -u
}

# _memsuite_values_of OPT CMD... -> the accepted values of OPT, one per line,
# from its help line: "(one of a|b|c)" or "OPT a|b|c".
_memsuite_values_of() {
    local opt="$1"
    shift
    _memsuite_help "$@" | awk -v opt="$opt" '
        {
            n = split($0, w, /[ ,\t]+/)
            hit = 0
            for (i = 1; i <= n; i++) if (w[i] == opt) { hit = i; break }
            if (!hit) next
            if (match($0, /\(one of [^)]*\)/)) {
                v = substr($0, RSTART + 8, RLENGTH - 9)
            } else if (hit < n && w[hit + 1] ~ /\|/) {
                v = w[hit + 1]
            } else next
            m = split(v, a, "|")
            for (i = 1; i <= m; i++) print a[i]
            exit
        }'
}

# _memsuite_reply CUR WORDS... -> COMPREPLY: the WORDS that start with CUR
_memsuite_reply() {
    local cur="$1" w
    shift
    COMPREPLY=()
    for w in "$@"; do
        [[ "$w" == "$cur"* ]] && COMPREPLY+=("$w")
    done
}

_memsuite_files() {     # _memsuite_files CUR [-d]
    compopt -o filenames 2>/dev/null
    if [ "${2:-}" = -d ]; then
        mapfile -t COMPREPLY < <(compgen -d -- "$1")
    else
        mapfile -t COMPREPLY < <(compgen -f -- "$1")
    fi
}

# Options whose value is a file or a directory (any command).
_memsuite_path_opt() {  # _memsuite_path_opt OPT -> f | d | nothing
    case "$1" in
        -O|--output|--ref|--result|--plot) echo f ;;
        --out|--results|--resume|--aggregate) echo d ;;
    esac
}

# _memsuite_option_value PREV CUR CMD... : completes the value of option
# PREV when it takes one; status 1 when PREV is not such an option.
_memsuite_option_value() {
    local prev="$1" cur="$2" kind
    shift 2
    case "$prev" in -*) ;; *) return 1 ;; esac
    kind=$(_memsuite_path_opt "$prev")
    if [ -n "$kind" ]; then
        if [ "$kind" = d ]; then _memsuite_files "$cur" -d; else _memsuite_files "$cur"; fi
        return 0
    fi
    local -a vals
    mapfile -t vals < <(_memsuite_values_of "$prev" "$@")
    [ "${#vals[@]}" -gt 0 ] || return 1
    _memsuite_reply "$cur" "${vals[@]}"
    return 0
}

# stream, stream_mpi, mbw: options, their values, else files (mbw's size
# is a number: nothing to offer).
_memsuite_complete_tool() {
    local cmd="${COMP_WORDS[0]}" cur="${COMP_WORDS[COMP_CWORD]}" prev=""
    [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
    _memsuite_option_value "$prev" "$cur" "$cmd" --help && return 0
    local -a opts
    mapfile -t opts < <(_memsuite_opts_of "$cmd" --help)
    _memsuite_reply "$cur" "${opts[@]}"
}

# mencal list | run SCENARIO...|all [options] | env [options]
_memsuite_complete_mencal() {
    local cmd="${COMP_WORDS[0]}" cur="${COMP_WORDS[COMP_CWORD]}" prev="" sub="${COMP_WORDS[1]:-}"
    [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
    local -a words help=("$cmd" --help)
    if [ "$COMP_CWORD" -eq 1 ]; then
        _memsuite_reply "$cur" list run env --help --version
        return 0
    fi
    # alloc has its own options
    if [ "$sub" = run ] && [ "${COMP_WORDS[2]:-}" = alloc ]; then
        help=("$cmd" run alloc --help)
    fi
    _memsuite_option_value "$prev" "$cur" "${help[@]}" && return 0
    if [ "$sub" = run ] && [[ "$cur" != -* ]]; then
        mapfile -t words < <("$cmd" list 2>/dev/null | awk '/^[a-z]/ { print $1 }')
        _memsuite_reply "$cur" "${words[@]}" all
        return 0
    fi
    if [ "$sub" = env ]; then
        _memsuite_reply "$cur" --format --output -O --help
        return 0
    fi
    mapfile -t words < <(_memsuite_opts_of "${help[@]}")
    _memsuite_reply "$cur" "${words[@]}"
}

# memsuite CMD [options]: the commands from `memsuite help`, each one's
# options from `memsuite help CMD`, a few value lists that the help names
# in prose, profile names from `memsuite profile list`.
_memsuite_complete() {
    local cmd="${COMP_WORDS[0]}" cur="${COMP_WORDS[COMP_CWORD]}" prev="" sub="${COMP_WORDS[1]:-}"
    [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
    local -a words
    mapfile -t words < <(_memsuite_help "$cmd" help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
    if [ "$COMP_CWORD" -eq 1 ]; then
        _memsuite_reply "$cur" "${words[@]}" help --help --version
        return 0
    fi
    case "$sub" in
        help) [ "$COMP_CWORD" -eq 2 ] && _memsuite_reply "$cur" "${words[@]}"; return 0 ;;
        profile)
            if [ "$COMP_CWORD" -eq 2 ]; then
                _memsuite_reply "$cur" list show apply restore --help
            elif [ "$COMP_CWORD" -eq 3 ] && [[ "$cur" != -* ]] && [ "$prev" != list ]; then
                mapfile -t words < <("$cmd" profile list 2>/dev/null | awk '{ print $1 }')
                _memsuite_reply "$cur" "${words[@]}"
            else
                _memsuite_reply "$cur" --strict
            fi
            return 0 ;;
    esac
    case "$prev" in
        --bench)
            mapfile -t words < <(_memsuite_mencal_scenarios "$cmd")
            _memsuite_reply "$cur" stream mbw mencal "${words[@]}"
            return 0 ;;
        --bind) _memsuite_reply "$cur" none close spread node:; return 0 ;;
        --launcher) _memsuite_reply "$cur" auto srun mpirun local; return 0 ;;
        --thp) _memsuite_reply "$cur" always madvise never; return 0 ;;
        --format) _memsuite_reply "$cur" text json; return 0 ;;
        --profile)
            mapfile -t words < <("$cmd" profile list 2>/dev/null | awk '{ print $1 }')
            _memsuite_reply "$cur" "${words[@]}"
            return 0 ;;
    esac
    _memsuite_option_value "$prev" "$cur" "$cmd" help "$sub" && return 0
    if [[ "$cur" != -* ]]; then
        case "$sub" in
            report|compare) _memsuite_files "$cur" -d; return 0 ;;
        esac
    fi
    mapfile -t words < <(_memsuite_opts_of "$cmd" help "$sub")
    _memsuite_reply "$cur" "${words[@]}"
}

# mencal:SCENARIO for --bench, from the mencal memsuite runs: a source
# tree's bin/mencal next to memsuite, an installed PREFIX/lib/memsuite/bin,
# else memsuite-mencal or mencal on PATH
_memsuite_mencal_scenarios() {
    local mencal dir
    dir=$(dirname -- "$(command -v "$1" 2>/dev/null || echo "$1")")
    mencal=$dir/../lib/memsuite/bin/mencal
    [ -x "$mencal" ] || mencal=$dir/mencal
    [ -x "$mencal" ] || mencal=$(command -v memsuite-mencal 2>/dev/null) ||
        mencal=$(command -v mencal 2>/dev/null) || return 0
    "$mencal" list 2>/dev/null | awk '/^[a-z]/ { print "mencal:" $1 } END { print "mencal:randread-sweep" }'
}

complete -F _memsuite_complete memsuite
complete -F _memsuite_complete_tool stream stream_mpi mbw memsuite-stream memsuite-stream_mpi memsuite-mbw
complete -F _memsuite_complete_mencal mencal memsuite-mencal
