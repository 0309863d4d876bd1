# Summary: run the peer-comparison scripts (peers-*.sh) and show their output
# Usage: memsuite peers [NAME...] [-- ARGS...]
#
# Runs each peers-<name>.sh that exists (peers-stream.sh,
# peers-mbw.sh, peers-mencal.sh: memsuite's tools next to established
# implementations), or only the NAMEs given, and prints their output under
# a "== peers-<name>.sh ==" heading.  ARGS after "--" go to every script
# (e.g. memsuite peers stream -- --size 256MiB --rounds 5).  The scripts
# are those next to memsuite in a source tree (scripts/), else the
# installed ones (PREFIX/share/memsuite/peers); MEMSUITE_PEERS_DIR
# overrides the directory.  Exit 0 when every script succeeded, 1 when one failed, 3
# when there is no script to run.

# The directory holding peers-*.sh: MEMSUITE_PEERS_DIR, else scripts/ of
# a source tree, else the installed PREFIX/share/memsuite/peers.
ms_peers_dir() {
    local f
    if [ -n "${MEMSUITE_PEERS_DIR:-}" ]; then
        printf '%s\n' "$MEMSUITE_PEERS_DIR"
        return
    fi
    for f in "$MS_SCRIPTS_DIR"/peers-*.sh; do
        [ -f "$f" ] && { printf '%s\n' "$MS_SCRIPTS_DIR"; return; }
    done
    if [ -d "$MS_LIB/../peers" ]; then
        (cd -- "$MS_LIB/../peers" && pwd)
    else
        printf '%s\n' "$MS_SCRIPTS_DIR"
    fi
}

cmd_peers() {
    local dir f n rc=0 ran=0 status
    local -a want=() files=() pass=()
    while [ $# -gt 0 ]; do
        case "$1" in
            -h|--help) ms_cmd_help ;;
            --) shift; pass=("$@"); break ;;
            -*) ms_unknown_option "$1" ;;
            *) [[ "$1" =~ ^[a-z0-9_-]+$ ]] || ms_usage_error "invalid peer name '$1'"
               want+=("$1") ;;
        esac
        shift
    done
    dir=$(ms_peers_dir)
    if [ "${#want[@]}" -gt 0 ]; then
        for n in "${want[@]}"; do
            f="$dir/peers-$n.sh"
            [ -f "$f" ] || ms_usage_error "no peer script $f"
            files+=("$f")
        done
    else
        for f in "$dir"/peers-*.sh; do
            [ -f "$f" ] && files+=("$f")
        done
    fi
    [ "${#files[@]}" -gt 0 ] ||
        ms_die "$MS_EX_ENV" "no peer scripts (peers-*.sh) in $dir"
    for f in "${files[@]}"; do
        printf '== %s ==\n' "${f##*/}"
        status=0
        bash "$f" "${pass[@]}" </dev/null || status=$?
        ran=$((ran + 1))
        if [ "$status" -ne 0 ]; then
            printf '== %s: exit %s ==\n' "${f##*/}" "$status"
            rc=1
        fi
        echo
    done
    ms_note "$ran peer script(s) run$([ "$rc" -ne 0 ] && echo ', some failed')"
    return "$rc"
}
