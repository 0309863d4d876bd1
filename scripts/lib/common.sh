# shellcheck shell=bash
# common: version, exit codes, messages, temp files, root and tool lookup.
# Sourced by scripts/memsuite before anything else.

MS_VERSION="0.1.0"          # keep in step with MB_VERSION (common/buildinfo.h)
MS_LICENCE="BSD 3-Clause licence (LICENSE)"   # MB_LICENCE_LINE there
MS_RUN_SCHEMA="memsuite/run/1"
MS_REF_SCHEMA="memsuite/ref/1"
MS_RESULT_SCHEMA="memsuite/result/2"     # what the tools write (docs/result.schema.json)
# The result schemas a reader accepts, oldest first: version 1 (without
# headline, base_unit, scale, better) is still read (docs/results-format.md).
MS_RESULT_SCHEMAS=("memsuite/result/1" "memsuite/result/2")

# Exit codes: common/exitcodes.h's enum mb_exit by name (MB_EXIT_X is
# MS_EX_X); tests/bats/memsuite-exitcodes.bats keeps the two lists in step.
MS_EX_OK=0
MS_EX_FAIL=1
MS_EX_USAGE=2
MS_EX_RESOURCE=3
MS_EX_UNBUILT=4
MS_EX_BUSY=5
MS_EX_INTERRUPTED=130
MS_EX_ENV=$MS_EX_RESOURCE   # the environment lacks something: a resource
export MS_EX_OK MS_EX_FAIL MS_EX_USAGE MS_EX_RESOURCE MS_EX_UNBUILT MS_EX_BUSY MS_EX_INTERRUPTED MS_EX_ENV

MS_CMD="${MS_CMD:-}"        # the subcommand, for message prefixes
MS_TMP=""                   # session temp directory (ms_tmpdir)

# Messages: "memsuite: <cmd>: what failed: why; what to do" on stderr.
# A message that cannot be written (stderr on a full disk or closed) is
# lost, never a status: under set -e it would end the command with 1,
# which reads as FAIL, before the exit code that was meant.
ms_prefix() {
    if [ -n "$MS_CMD" ]; then printf 'memsuite: %s: ' "$MS_CMD"; else printf 'memsuite: '; fi
}
ms_error() { { ms_prefix; ms_msg_line "$*"; } >&2 2>/dev/null || true; }
ms_warn()  { { ms_prefix; ms_msg_line "warning: $*"; } >&2 2>/dev/null || true; }
ms_note()  { { ms_prefix; ms_msg_line "$*"; } >&2 2>/dev/null || true; }
# ms_msg_line TEXT: TEXT and a newline, with its control characters in
# caret notation (ms_printable) when it holds any but newline and tab: a
# value a message quotes (an option's value, a name from a file) cannot
# drive the terminal.  Plain text costs no process.
MS_CTL_GLOB=$'*[\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f]*'
MS_C1_GLOB=$'*\xc2[\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f]*'
# A text over MS_MSG_WORD_MAX characters is cut first (ms_msg_cut), so a
# huge value a message quotes (a 100 KB argument) never floods it.
MS_MSG_WORD_MAX=256 MS_MSG_WORD_KEPT=64 MS_MSG_MAX=8192     # bytes, as common/log.c
ms_msg_line() {
    local t="$1"
    [ "${#t}" -le "$MS_MSG_WORD_MAX" ] || t=$(printf '%s' "$t" | ms_msg_cut)
    # shellcheck disable=SC2053  # the right side is a pattern
    if [[ "$t" == $MS_CTL_GLOB || "$t" == $MS_C1_GLOB ]]; then
        printf '%s\n' "$t" | ms_printable
    else
        printf '%s\n' "$t"
    fi
}
# ms_msg_cut: stdin's text with common/log.c's rule: a word (a run without
# blanks) over MS_MSG_WORD_MAX bytes becomes its first MS_MSG_WORD_KEPT
# characters and "... (N bytes)", N the value's length, the quotes and
# punctuation around it kept; a text over MS_MSG_MAX bytes is cut there and
# marked alike.  Read from stdin: a 1 MB text is no argument to a command.
ms_msg_cut() {
    LC_ALL=C awk -v wmax="$MS_MSG_WORD_MAX" -v keep="$MS_MSG_WORD_KEPT" -v max="$MS_MSG_MAX" '
        function cut(w,    pre, post, core, k) {
            pre = 0; post = 0
            while (pre < 2 && index("\047\"`([{", substr(w, pre + 1, 1))) pre++
            while (post < 3 && index("\047\"`)]};:,.", substr(w, length(w) - post, 1))) post++
            core = substr(w, pre + 1, length(w) - pre - post)
            k = keep
            # never split a UTF-8 character: no continuation byte first after the cut
            while (k > 0 && substr(core, k + 1, 1) >= "\200" && substr(core, k + 1, 1) < "\300") k--
            return substr(w, 1, pre) substr(core, 1, k) "... (" length(core) " bytes)" substr(w, length(w) - post + 1)
        }
        {
            s = $0; out = ""
            while (match(s, /[^ \t]+/)) {
                out = out substr(s, 1, RSTART - 1)
                w = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
                out = out (length(w) > wmax ? cut(w) : w)
            }
            text = text (NR > 1 ? "\n" : "") out s; total += length($0) + (NR > 1)
        }
        END {
            if (length(text) > max) text = substr(text, 1, max) "... (" total " bytes)"
            printf "%s", text
        }'
}
# ms_die CODE MESSAGE...
ms_die() {
    local code="$1"
    shift
    ms_error "$@"
    exit "$code"
}
ms_usage_error() { ms_die "$MS_EX_USAGE" "$@"; }

# The session temp directory, created on first use, removed at exit.  Its
# name carries our pid ("memsuite.<pid>.XXXXXX"), so one left by a run
# killed with SIGKILL is removed by the next run (ms_tmp_clean_stale).
# A pid is only meaningful in its own PID namespace, so the directory
# also records the session's namespace (.pidns, readlink of
# /proc/self/ns/pid): a run in a container or another namespace sharing
# /tmp never takes a live session there for a dead one.
ms_tmpdir() {
    if [ -z "$MS_TMP" ]; then
        ms_tmp_clean_stale
        MS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/memsuite.$$.XXXXXX") ||
            ms_die "$MS_EX_ENV" "cannot create a temp directory under ${TMPDIR:-/tmp}; set TMPDIR to a writable directory"
        ms_at_exit ms_tmp_remove
        readlink /proc/self/ns/pid >"$MS_TMP/.pidns" 2>/dev/null || true
    fi
}
ms_tmp_remove() { [ -n "$MS_TMP" ] && rm -rf -- "$MS_TMP"; MS_TMP=""; }
# Session directories whose memsuite is gone: directories we own, named
# exactly memsuite.<pid>.XXXXXX, never through a symlink.
ms_tmp_clean_stale() {
    local d pid restore
    local -a list
    restore=$(shopt -p nullglob || true)
    shopt -s nullglob
    list=("${TMPDIR:-/tmp}"/memsuite.*.*)
    eval "$restore"
    for d in "${list[@]}"; do
        [[ ${d##*/} =~ ^memsuite\.([0-9]{1,9})\.[A-Za-z0-9]{6}$ ]] || continue
        pid=$((10#${BASH_REMATCH[1]}))
        if kill -0 "$pid" 2>/dev/null || [ -d "/proc/$pid" ]; then continue; fi
        # dead here, but the pid may belong to another PID namespace
        if [ -f "$d/.pidns" ] && [ "$(cat -- "$d/.pidns" 2>/dev/null)" != "$(readlink /proc/self/ns/pid 2>/dev/null)" ]; then
            continue
        fi
        if [ -d "$d" ] && [ ! -L "$d" ] && [ -O "$d" ]; then rm -rf -- "$d"; fi
    done
}
# ms_mktemp [-d]: a fresh file (or directory) in the session temp dir.
ms_mktemp() {
    ms_tmpdir
    if [ "${1:-}" = "-d" ]; then
        mktemp -d "$MS_TMP/d.XXXXXX"
    else
        mktemp "$MS_TMP/f.XXXXXX"
    fi
}

# ms_publish_mode FILE: give a file made by mktemp (always 0600) the mode
# a plain redirection would have (0666 less the umask), so results,
# run.json and references stay readable by the other operators and nodes.
ms_publish_mode() {
    chmod "$(printf '%04o' $((0666 & ~0$(umask))))" -- "$1" 2>/dev/null || true
}

# Root check; MEMSUITE_ASSUME_ROOT=0|1 overrides it (tests run as root).
ms_is_root() {
    case "${MEMSUITE_ASSUME_ROOT:-}" in
        1) return 0 ;;
        0) return 1 ;;
    esac
    [ "$(id -u)" -eq 0 ]
}

ms_require_cmd() {   # ms_require_cmd NAME WHY-HINT
    command -v "$1" >/dev/null 2>&1 ||
        ms_die "$MS_EX_ENV" "'$1' is not installed; $2"
}

# Where the benchmark binaries are: MEMSUITE_BIN, else the installed tools
# (PREFIX/lib/memsuite/bin, this script being PREFIX/bin/memsuite), else
# the repository's bin/, else PATH.  PREFIX/bin itself is never searched:
# its stream may be ImageMagick's (docs/install.md).
ms_tool_path() {     # ms_tool_path NAME -> prints the path, 1 when absent
    local name="$1" dir
    if [ -n "${MEMSUITE_BIN:-}" ]; then
        dir="$MEMSUITE_BIN"
        [ -x "$dir/$name" ] && [ -f "$dir/$name" ] && { printf '%s\n' "$dir/$name"; return 0; }
        return 1
    fi
    for dir in "$MS_SCRIPTS_DIR/../lib/memsuite/bin" "$MS_SCRIPTS_DIR/../bin"; do
        if [ -x "$dir/$name" ] && [ -f "$dir/$name" ]; then
            (cd -- "$dir" && printf '%s/%s\n' "$(pwd)" "$name")
            return 0
        fi
    done
    command -v "$name" 2>/dev/null || return 1
}
ms_tool_require() {  # ms_tool_require NAME -> prints the path or dies (3)
    local p
    if ! p=$(ms_tool_path "$1"); then
        if [ -n "${MEMSUITE_BIN:-}" ]; then
            ms_die "$MS_EX_ENV" "benchmark '$1' not found in MEMSUITE_BIN=$MEMSUITE_BIN; build it with 'make' or fix MEMSUITE_BIN"
        fi
        ms_die "$MS_EX_ENV" "benchmark '$1' not found in PREFIX/lib/memsuite/bin, bin/ or on PATH; build it with 'make'"
    fi
    printf '%s\n' "$p"
}

# The helpers (helpers/: memsuite-size, the C size grammar and LLC
# detector; memsuite-facts, the environment facts): the one installed or
# built with this script first (PREFIX/libexec/memsuite when installed,
# bin/ in the source tree), then MEMSUITE_BIN, then PATH.
# ms_helper NAME prints its path; status 1 when absent (say
# ms_helper_missing NAME).
ms_helper_missing() {
    printf "helper '%s' not found in libexec/memsuite, bin/, MEMSUITE_BIN or on PATH; build it with 'make'\n" "$1"
}
MS_SIZE_HELPER_MISSING="helper 'memsuite-size' not found in libexec/memsuite, bin/, MEMSUITE_BIN or on PATH; build it with 'make'"
ms_helper() {
    local dir
    for dir in "$MS_SCRIPTS_DIR/../libexec/memsuite" "$MS_SCRIPTS_DIR/../bin" "${MEMSUITE_BIN:-}"; do
        if [ -n "$dir" ] && [ -x "$dir/$1" ] && [ -f "$dir/$1" ]; then
            printf '%s\n' "$dir/$1"
            return 0
        fi
    done
    command -v "$1" 2>/dev/null
}
ms_size_helper() { ms_helper memsuite-size; }

# Numbers and words used by the option parsers.
ms_is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }
# ms_need_arg OPTION [VALUE...] (call it with "$@" of the option loop):
# dies (exit 2) unless the option has a value, and unless that value is
# non-empty: an empty value never silently means "the default".
ms_need_arg() {
    local why
    why=$(ms_arg_problem "$@") || ms_usage_error "$why"
}
# ms_arg_problem OPTION [VALUE...]: prints what ms_need_arg refuses and
# returns 1; 0 when the option has a value.
ms_arg_problem() {
    if [ $# -lt 2 ]; then echo "option $1 needs a value; see 'memsuite help $MS_CMD'"; return 1; fi
    if [ -z "$2" ]; then
        echo "option $1: the value is empty; give a value or leave the option out for the default (see 'memsuite help $MS_CMD')"
        return 1
    fi
}
ms_unknown_option() { ms_usage_error "$(ms_unknown_option_why "$1")"; }
ms_unknown_option_why() { echo "unknown option '$1'; see 'memsuite help $MS_CMD'"; }

# ms_printable: stdin to stdout with every control character (C0 but
# newline, DEL, and C1 as UTF-8 \xc2\x80-\x9f) shown in caret notation
# (ESC as ^[, DEL as ^?, C1 as M-^X): text from files other people write
# (node reports, result documents, file names) cannot drive the terminal.
MS_PRINTABLE_SED=""
ms_printable() {
    if [ -z "$MS_PRINTABLE_SED" ]; then
        # Caret letters for codes 0..31; sed needs [ \ ^ escaped.
        local letters='@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_' i l
        for ((i = 0; i < 32; i++)); do
            l="${letters:i:1}"
            case "$l" in [][\\^]) l="\\$l" ;; esac
            [ "$i" -ne 10 ] && MS_PRINTABLE_SED+="s/\\x$(printf '%02x' "$i")/^$l/g;"
            MS_PRINTABLE_SED+="s/\\xc2\\x$(printf '%02x' $((i + 128)))/M-^$l/g;"
        done
        MS_PRINTABLE_SED+='s/\x7f/^?/g'
    fi
    LC_ALL=C sed -e "$MS_PRINTABLE_SED"
}

# ms_shown TEXT: TEXT quoted for a message: at most 40 characters, and
# when cut "... (N bytes)" after them; control characters in caret
# notation (ms_printable), so that neither a terminal escape nor a whole
# line of a file reaches the terminal.  Plain text costs no process.
ms_shown() {
    local LC_ALL=C
    local t="${1:0:40}" more=""
    [ "${#1}" -gt 40 ] && more="... (${#1} bytes)"
    # shellcheck disable=SC2053  # the right side is a pattern
    if [[ "$t" == $MS_CTL_GLOB || "$t" == $MS_C1_GLOB ]]; then
        printf "'%s'%s\n" "$t" "$more" | ms_printable
    else
        printf "'%s'%s\n" "$t" "$more"
    fi
}

# ms_stdout LINE...: print the lines on stdout; a failed write (stdout on
# a full disk, /dev/full, a closed pipe) dies with exit 3, so that it
# never reads as a verdict (check's exit 1 is FAIL).
ms_stdout() {
    printf '%s\n' "$@" 2>/dev/null ||
        ms_die "$MS_EX_ENV" "cannot write to standard output (disk full, /dev/full or a closed pipe?); the result is lost"
}

# Human form of a byte count: 1.5 GiB, 512.0 KiB, 17 B (the tools' own
# formatter, mb_format_bytes, through the size helper).
ms_human_bytes() {
    local h
    h=$(ms_size_helper) && "$h" --human "$1" 2>/dev/null || printf '%s B\n' "$1"
}

ms_now_utc() { TZ=UTC printf '%(%Y-%m-%dT%H:%M:%SZ)T\n' -1; }
MS_HOST=""
ms_hostname() {
    [ -n "$MS_HOST" ] || MS_HOST=$(hostname 2>/dev/null || uname -n)
    printf '%s\n' "$MS_HOST"
}

# Join the remaining arguments as one shell-quoted command line.
ms_quote_cmd() {
    local out="" a q
    for a in "$@"; do
        printf -v q '%q' "$a"
        out+="${out:+ }$q"
    done
    printf '%s\n' "$out"
}

# The arguments as a compact JSON array of strings (one per line of input,
# so an argument holding a newline is split).
ms_json_array() {
    if [ $# -eq 0 ]; then echo '[]'; return; fi
    printf '%s\n' "$@" | jq -R . | jq -s -c .
}

# State directory for saved knob values (profile apply, enforce).
ms_state_dir() {
    if [ -n "${MEMSUITE_STATE_DIR:-}" ]; then
        printf '%s\n' "$MEMSUITE_STATE_DIR"
    elif ms_is_root; then
        printf '%s\n' /var/lib/memsuite
    else
        printf '%s\n' "${XDG_STATE_HOME:-${HOME:-/tmp}/.local/state}/memsuite"
    fi
}

# Source a helper file from scripts/lib once.
declare -A MS_LOADED=()
# MS_LIB: this library's directory (scripts/memsuite sets it; a script or
# test that sources common.sh alone gets the directory common.sh is in).
: "${MS_LIB:=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)}"

ms_use() {
    local f
    for f in "$@"; do
        [ -n "${MS_LOADED[$f]:-}" ] && continue
        MS_LOADED[$f]=1
        # shellcheck source=/dev/null
        . "$MS_LIB/$f.sh"
    done
}
