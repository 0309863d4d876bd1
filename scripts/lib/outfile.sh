# shellcheck shell=bash
# outfile: the one way memsuite writes a file (references, run state,
# reports, plots, env.json, summaries): the twin of common/outfile.h, with
# the same rules.
#
#   "-"                          standard output.
#   /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a chain of
#   symlinks to one              that descriptor (1 and 2 are memsuite's
#                                own, even inside $(...)); never the file
#                                behind it, never a rename over the link.
#   a character device or FIFO   written in place.
#   a block device, a socket, a directory, or a symlink to any
#   non-regular file             refused.
#   a regular file, a symlink to one, or nothing yet
#                                replaced atomically: the content is made
#                                in the session temp dir, copied to
#                                "<path>.tmp.<pid>.<random>" (created
#                                exclusively, in the target's directory)
#                                and renamed over the path.  A symlink is
#                                replaced, never followed.
#
# Before that, the stale "<path>.tmp.<pid>[.*]" of processes that no longer
# exist are removed (regular files we own; never through a symlink).
#
#   ms_out_check PATH     0 when PATH can be written, else 1 with MS_OUT_ERR
#                         (call it before measuring)
#   ms_out_write PATH CMD [ARG...]
#                         CMD's stdout becomes PATH; CMD's status, or 1 with
#                         MS_OUT_ERR when PATH cannot be written (nothing
#                         is replaced then).  CMD's output is made whole
#                         first: a failing CMD writes nothing, not even to
#                         a descriptor or device

MS_OUT_ERR=""
MS_OUT_WHY=""       # a failed write on a descriptor or device: strerror
MS_OUT_KIND=""      # set by ms_out_classify: fd | inplace | atomic
MS_OUT_FD=""        # for kind fd

# The script's own stdout and stderr, saved once by ms_out_init (memsuite
# calls it first), so "-" and /dev/stdout mean them inside $(...) too.
MS_OUT_STDOUT=1
MS_OUT_STDERR=2
ms_out_init() {
    exec {MS_OUT_STDOUT}>&1 {MS_OUT_STDERR}>&2
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

# ms_out_classify PATH: sets MS_OUT_KIND (and MS_OUT_FD), or returns 1
# with MS_OUT_ERR.
ms_out_classify() {
    local path="$1" fd
    MS_OUT_ERR="" MS_OUT_WHY="" MS_OUT_KIND="" MS_OUT_FD=""
    if [ -z "$path" ]; then
        MS_OUT_ERR="'': empty path; name a file ('-' writes to stdout)"
        return 1
    fi
    if [ "$path" = - ]; then
        MS_OUT_KIND=fd MS_OUT_FD=1
        return 0
    fi
    if fd=$(ms_out_fd_alias "$path"); then
        MS_OUT_KIND=fd MS_OUT_FD=$fd
        return 0
    fi
    if [ -L "$path" ]; then
        if [ -e "$path" ] && [ ! -f "$path" ]; then
            MS_OUT_ERR="'$path': is a symbolic link to $(ms_out_kind_name "$path"); name the target itself, or remove the link"
            return 1
        fi
        MS_OUT_KIND=atomic
    elif [ -d "$path" ]; then
        MS_OUT_ERR="'$path': is a directory; name a file in it"
        return 1
    elif [ -c "$path" ] || [ -p "$path" ]; then
        MS_OUT_KIND=inplace
    elif [ -e "$path" ] && [ ! -f "$path" ]; then
        MS_OUT_ERR="'$path': is $(ms_out_kind_name "$path"), which is never written; choose a file"
        return 1
    else
        MS_OUT_KIND=atomic
    fi
}

ms_out_dir() {     # the directory a path's file lives in
    if [[ $1 == */* ]]; then printf '%s\n' "${1%/*}/"; else printf './\n'; fi
}

# ms_out_random: 16 unpredictable hex digits.
ms_out_random() {
    local r
    r=$(od -An -N8 -tx1 /dev/urandom 2>/dev/null | tr -d ' \n')
    [ -n "$r" ] || r=$(printf '%04x%04x%04x%04x' "$RANDOM" "$RANDOM" "$RANDOM" "$RANDOM")
    printf '%s\n' "$r"
}

# ms_out_create_temp PATH: creates "<PATH>.tmp.<pid>.<random>" exclusively
# (noclobber) and prints its name; 1 when that is impossible.
ms_out_create_temp() {
    local tmp i
    for i in 1 2 3 4 5 6 7 8; do
        tmp="$1.tmp.$BASHPID.$(ms_out_random)"
        if (set -C; : >"$tmp") 2>/dev/null; then
            if [ -f "$tmp" ] && [ ! -L "$tmp" ]; then
                printf '%s\n' "$tmp"
                return 0
            fi
            return 1
        fi
        [ -e "$tmp" ] || [ -L "$tmp" ] || return 1    # not a name clash: a real error
    done
    return 1
}

# ms_out_clean_stale PATH: removes PATH's temporaries whose process is gone.
ms_out_clean_stale() {
    local path="$1" f rest pid restore
    local -a list
    restore=$(shopt -p nullglob || true)
    shopt -s nullglob
    list=("$path".tmp.*)
    eval "$restore"
    for f in "${list[@]}"; do
        rest=${f#"$path".tmp.}
        [[ $rest =~ ^([0-9]{1,9})(\..*)?$ ]] || continue
        pid=$((10#${BASH_REMATCH[1]}))
        if kill -0 "$pid" 2>/dev/null || [ -d "/proc/$pid" ]; then continue; fi
        if [ -f "$f" ] && [ ! -L "$f" ] && [ -O "$f" ]; then rm -f -- "$f"; fi
    done
}

ms_out_check() {
    local path="$1" tmp
    ms_out_classify "$path" || return 1
    [ "$MS_OUT_KIND" = atomic ] || return 0
    ms_out_clean_stale "$path"
    if ! tmp=$(ms_out_create_temp "$path"); then
        MS_OUT_ERR="'$path': cannot create a file in '$(ms_out_dir "$path")'; check that the directory exists and is writable, or choose another path"
        return 1
    fi
    rm -f -- "$tmp"
}

# ms_out_reason MESSAGE: the reason at the end of a command's error
# message ("cat: write error: No space left on device" -> "No space left
# on device"; bash's "...: /dev/x: Permission denied" -> "Permission denied").
ms_out_reason() {
    local m="${1%%$'\n'*}"
    m="${m##*: }"
    printf '%s\n' "${m:-an unknown error}"
}

# ms_out_stream PATH CONTENT: CONTENT written to PATH, of kind fd or
# inplace (MS_OUT_KIND, MS_OUT_FD); 1 with MS_OUT_ERR naming the reason
# (a full device, a closed pipe, a device that refuses the open), and
# MS_OUT_WHY the reason alone ("No space left on device").
ms_out_stream() {
    local err
    case "$MS_OUT_KIND:$MS_OUT_FD" in
        fd:1) err=$(cat -- "$2" 2>&1 >&"$MS_OUT_STDOUT") ;;
        fd:2) err=$(cat -- "$2" 2>&1 >&"$MS_OUT_STDERR") ;;
        fd:*) err=$(cat -- "$2" 2>&1 >&"$MS_OUT_FD") ;;
        *) err=$(cat -- "$2" 2>&1 >"$1") ;;
    esac && return 0
    MS_OUT_WHY=$(ms_out_reason "$err")
    MS_OUT_ERR="'$1': the write failed: $MS_OUT_WHY"
    return 1
}

ms_out_write() {
    local path="$1" content tmp rc=0 err
    shift
    ms_out_classify "$path" || return 1
    if [ "$MS_OUT_KIND" = fd ] && [ "$MS_OUT_FD" -gt 2 ] && ! { true >&"$MS_OUT_FD"; } 2>/dev/null; then
        MS_OUT_ERR="'$path': descriptor $MS_OUT_FD is not open for writing; redirect it or choose another path"
        return 1
    fi
    # The content is made first, whatever the kind: a command that fails
    # writes nothing anywhere, and the one write that follows can say why
    # it failed (ms_out_stream).
    content=$(ms_mktemp) || { MS_OUT_ERR="'$path': no session temp directory"; return 1; }
    "$@" >"$content" || { rc=$?; rm -f -- "$content"; return "$rc"; }
    if [ "$MS_OUT_KIND" != atomic ]; then
        ms_out_stream "$path" "$content" || rc=1
        rm -f -- "$content"
        return "$rc"
    fi
    ms_out_clean_stale "$path"
    if ! tmp=$(ms_out_create_temp "$path"); then
        rm -f -- "$content"
        MS_OUT_ERR="'$path': cannot create a file in '$(ms_out_dir "$path")'; check that the directory exists and is writable, or choose another path"
        return 1
    fi
    if ! err=$(cat -- "$content" 2>&1 >>"$tmp"); then
        rm -f -- "$tmp" "$content"
        MS_OUT_ERR="'$path': writing '$tmp' failed: $(ms_out_reason "$err"); the previous file, if any, is unchanged"
        return 1
    fi
    rm -f -- "$content"
    ms_publish_mode "$tmp"
    # Last look: a node that appeared meanwhile is never renamed over.
    if [ ! -L "$path" ] && [ -e "$path" ] && [ ! -f "$path" ]; then
        rm -f -- "$tmp"
        MS_OUT_ERR="'$path': became $(ms_out_kind_name "$path") while it was being written; nothing replaced"
        return 1
    fi
    if ! mv -fT -- "$tmp" "$path" 2>/dev/null; then
        rm -f -- "$tmp"
        MS_OUT_ERR="'$path': renaming '$tmp' into place failed; the previous file, if any, is unchanged"
        return 1
    fi
}
