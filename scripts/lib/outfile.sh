# shellcheck shell=bash
# outfile: the one way memsuite writes a file (references, run state,
# reports, plots, env.json, summaries).  The rules are common/outfile.h's,
# applied by the helper memsuite-out (helpers/memsuite-out.c) built on it:
# "-" and /dev/stdout are memsuite's standard output (even inside $(...)),
# descriptors are themselves, devices and FIFOs are written in place (a
# FIFO nobody reads is refused, never waited for), a regular file is
# replaced atomically after its space was reserved, never through a
# symlink, and never when it is one of the command's inputs.
#
#   MS_OUT_INPUTS=(FILE...)  the command's inputs (a result, a run
#                         directory's cells): no output may be one of them
#   ms_out_check PATH     0 when PATH can be written, else 1 with MS_OUT_ERR
#                         and MS_OUT_STATUS (2: PATH is an input, 3: it
#                         cannot be written).  Call it before measuring: a
#                         FIFO is also held open from then on, so its reader
#                         is the one that gets the document.
#   ms_out_write PATH CMD [ARG...]
#                         CMD's stdout becomes PATH; CMD's status, or 1 with
#                         MS_OUT_ERR and MS_OUT_STATUS when PATH cannot be
#                         written (nothing is replaced then).  CMD's output
#                         is made whole first: a failing CMD writes nothing,
#                         not even to a descriptor or device.
# After either: MS_OUT_KIND is how PATH is written (atomic, descriptor,
# in place) and, after a failed write, MS_OUT_WHY the reason alone
# ("No space left on device").

MS_OUT_ERR=""
MS_OUT_WHY=""
MS_OUT_KIND=""
MS_OUT_STATUS=0
MS_OUT_INPUTS=()
declare -A MS_OUT_HELD=()   # FIFO path -> the descriptor memsuite holds on it

# The script's own stdout and stderr, saved once by ms_out_init (memsuite
# calls it first), so "-" and /dev/stdout mean them inside $(...) too;
# empty when closed at start (a write there is refused, exit 3, named).
MS_OUT_STDOUT=""
MS_OUT_STDERR=""
ms_out_init() {
    { exec {MS_OUT_STDOUT}>&1; } 2>/dev/null || MS_OUT_STDOUT=""
    { exec {MS_OUT_STDERR}>&2; } 2>/dev/null || MS_OUT_STDERR=""
}

# ms_out_fd_alias PATH: prints N when PATH names a descriptor of ours
# through /proc/self/fd (directly or by a chain of symlinks).
ms_out_fd_alias() {
    local p="$1" hop dir base link
    for ((hop = 0; hop < 40; hop++)); do
        [[ $p == /* ]] || p="$PWD/$p"
        dir=${p%/*}
        base=${p##*/}
        [ -n "$dir" ] || dir=/
        if [[ $base =~ ^[0-9]{1,9}$ ]]; then
            case "$dir" in
                /dev/fd | /proc/self/fd | /proc/thread-self/fd | "/proc/$$/fd" | "/proc/$BASHPID/fd")
                    printf '%s\n' "$((10#$base))"
                    return 0 ;;
            esac
        fi
        case "$p" in
            /dev/stdout) printf '1\n'; return 0 ;;
            /dev/stderr) printf '2\n'; return 0 ;;
        esac
        [ -L "$p" ] || return 1
        link=$(readlink -- "$p") || return 1
        if [[ $link == /* ]]; then p=$link; else p="$dir/$link"; fi
    done
    return 1
}

ms_out_kind_name() {   # ms_out_kind_name PATH (existing): "a block device" ...
    if [ -d "$1" ]; then echo "a directory"
    elif [ -b "$1" ]; then echo "a block device"
    elif [ -c "$1" ]; then echo "a character device"
    elif [ -p "$1" ]; then echo "a FIFO"
    elif [ -S "$1" ]; then echo "a socket"
    else echo "not a regular file"
    fi
}

# ms_out_reason MESSAGE: the reason at the end of a command's error
# message ("cat: write error: No space left on device" -> "No space left
# on device"; bash's "...: /dev/x: Permission denied" -> "Permission denied").
ms_out_reason() {
    local m="${1%%$'\n'*}"
    m="${m##*: }"
    printf '%s\n' "${m:-an unknown error}"
}

# ms_out_helper_args PATH: the helper's arguments after MODE in
# MS_OUT_ARGS (the inputs, then PATH as the helper names it); 1 with
# MS_OUT_ERR when there is no helper.
ms_out_helper_args() {
    local path="$1" i
    MS_OUT_ERR="" MS_OUT_WHY="" MS_OUT_KIND="" MS_OUT_STATUS=0
    if ! MS_OUT_HELPER=$(ms_helper memsuite-out); then
        MS_OUT_ERR="$(ms_shown "$path"): $(ms_helper_missing memsuite-out)" MS_OUT_STATUS=3
        return 1
    fi
    # memsuite's own descriptors by the helper's names for them
    case "$path" in
        "/proc/$$/fd/"* | "/proc/$BASHPID/fd/"*) path="/dev/fd/${path##*/}" ;;
    esac
    [ -z "${MS_OUT_HELD[$path]:-}" ] || path="/dev/fd/${MS_OUT_HELD[$path]}"
    MS_OUT_ARGS=()
    for i in "${MS_OUT_INPUTS[@]}"; do MS_OUT_ARGS+=(--input "$i"); done
    MS_OUT_ARGS+=(-- "$path")
}

# ms_out_said RC LINE...: what the helper said (memsuite-out.c): "kind:
# K" when RC is 0; else the message, "why: REASON", "exit: N".
ms_out_said() {
    local rc="$1" l
    shift
    if [ "$rc" -eq 0 ] && [[ ${1:-} == "kind: "* ]]; then
        MS_OUT_KIND=${1#kind: }
        return 0
    fi
    MS_OUT_ERR=${1:-} MS_OUT_STATUS=3
    for l in "${@:2}"; do
        case "$l" in
            "why: "*) MS_OUT_WHY=${l#why: } ;;
            "exit: 2") MS_OUT_STATUS=2 ;;
        esac
    done
    [ -n "$MS_OUT_ERR" ] || MS_OUT_ERR="$(ms_shown "${MS_OUT_ARGS[-1]}"): memsuite-out failed (exit $rc)"
    return 1
}

# ms_out_helper MODE PATH: memsuite-out MODE on PATH with memsuite's own
# stdout and stderr (stdin passes through); sets MS_OUT_KIND, or returns 1
# with MS_OUT_ERR, MS_OUT_WHY and MS_OUT_STATUS.
ms_out_helper() {
    local mode="$1" said rc=0
    ms_out_helper_args "$2" || return 1
    said=$(
        exec {msg}>&1
        if [ -n "$MS_OUT_STDOUT" ]; then exec 1>&"$MS_OUT_STDOUT"; else exec 1>&-; fi
        if [ -n "$MS_OUT_STDERR" ]; then exec 2>&"$MS_OUT_STDERR"; else exec 2>&-; fi
        exec "$MS_OUT_HELPER" "$mode" --msg-fd "$msg" "${MS_OUT_ARGS[@]}"
    ) || rc=$?
    local -a lines
    mapfile -t lines <<<"$said"
    ms_out_said "$rc" "${lines[@]}"
}

# ms_out_hold PATH (a FIFO): checked by the helper, which keeps it open
# for writing while memsuite opens it too, so the FIFO's reader never sees
# an end between this check and the write; a FIFO nobody reads is
# refused like any unwritable path.
ms_out_hold() {
    local path="$1" sync fd line
    ms_out_helper_args "$path" || return 1
    exec {sync}< <(exec "$MS_OUT_HELPER" hold --msg-fd 1 "${MS_OUT_ARGS[@]}" 2>/dev/null)
    IFS= read -r line <&"$sync" || line=""
    if [ "$line" = "kind: in place" ]; then
        exec {fd}>"$path"
        MS_OUT_HELD[$path]=$fd MS_OUT_KIND="in place"
        exec {sync}<&-
        return 0
    fi
    local -a lines=("$line")
    mapfile -t -O 1 lines <&"$sync"
    exec {sync}<&-
    ms_out_said 1 "${lines[@]}"
}

ms_out_check() {
    if [ -p "$1" ] && [ ! -L "$1" ]; then
        [ -n "${MS_OUT_HELD[$1]:-}" ] || ms_out_hold "$1"
        return
    fi
    ms_out_helper check "$1"
}

ms_out_write() {
    local path="$1" content rc=0 fd
    shift
    MS_OUT_ERR="" MS_OUT_STATUS=3
    # The content is made first, whatever the kind: a command that fails
    # writes nothing anywhere, and the one write that follows can say why
    # it failed.
    content=$(ms_mktemp) || { MS_OUT_ERR="$(ms_shown "$path"): no session temp directory" MS_OUT_STATUS=3; return 1; }
    "$@" >"$content" || { rc=$?; rm -f -- "$content"; return "$rc"; }
    ms_out_helper write "$path" <"$content" || rc=1
    rm -f -- "$content"
    fd=${MS_OUT_HELD[$path]:-}
    if [ -n "$fd" ]; then   # a held FIFO takes one document: its reader ends it
        exec {fd}>&-
        unset 'MS_OUT_HELD[$path]'
    fi
    return "$rc"
}
