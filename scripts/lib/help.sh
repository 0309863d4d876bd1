# shellcheck shell=bash
# help: commands document themselves.  Each scripts/lib/cmd-<name>.sh opens
# with a comment block:
#   # Summary: one line
#   # Usage: memsuite <name> ...      (one or more lines)
#   #
#   # free help text ...
# The block ends at the first line that is not a comment.

ms_command_file() { printf '%s/cmd-%s.sh\n' "$MS_LIB" "$1"; }

ms_command_exists() {
    [[ "$1" =~ ^[a-z][a-z0-9-]*$ ]] && [ -f "$(ms_command_file "$1")" ]
}

ms_load_command() {
    # shellcheck source=/dev/null
    . "$(ms_command_file "$1")"
}

ms_command_names() {
    local f n
    for f in "$MS_LIB"/cmd-*.sh; do
        [ -f "$f" ] || continue
        n="${f##*/cmd-}"
        printf '%s\n' "${n%.sh}"
    done
}

# The leading comment block, "# " stripped.
ms_help_block() {
    awk '/^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1"
}
# The readers below consume all their input: one that exits early (head,
# awk's exit) can make the writer die of SIGPIPE under load (pipefail: a
# spurious status 141).
ms_help_summary() {
    ms_help_block "$1" | awk '!done && /^Summary:/ { sub(/^Summary: */, ""); print; done = 1 }'
}
ms_help_usage() {
    ms_help_block "$1" | awk '
        done { next }
        /^Usage:/ { on = 1; sub(/^Usage: */, ""); print "Usage: " $0; next }
        on && /^       / { print; next }
        on { done = 1 }'
}
ms_help_text() {
    ms_help_block "$1" | awk '
        /^Summary:/ { next }
        /^Usage:/ { skip = 1; next }
        skip && /^       / { next }
        { skip = 0; if (started || $0 != "") { started = 1; print } }'
}

ms_help_overview() {
    local n
    echo "Usage: memsuite <command> [options]"
    echo
    echo "Commands:"
    while IFS= read -r n; do
        printf '   %-10s %s\n' "$n" "$(ms_help_summary "$(ms_command_file "$n")")"
    done < <(ms_command_names)
    echo
    echo "See 'memsuite help <command>' for a command's options."
    echo "Exit codes: 0 ok, 1 failure, 2 usage error, 3 the environment prevents a valid run,"
    echo "  4 a feature not built in, 5 the node is busy (check, cluster: nothing judged), 130 interrupted."
}

# memsuite help [cmd]: the text is made first, then written at once; a
# reader that stops early (memsuite help run | head -1) is no error: the
# write's EPIPE is ignored and help exits 0, with no signal note.
ms_help_command() {
    local text
    text=$(ms_help_render "$@")
    trap '' PIPE
    printf '%s\n' "$text" 2>/dev/null || true
}
ms_help_render() {
    if [ $# -eq 0 ]; then
        ms_help_overview
        return 0
    fi
    if [ $# -gt 1 ]; then
        ms_usage_error "help takes at most one command name"
    fi
    if ! ms_command_exists "$1"; then
        ms_usage_error "no such command '$1'; run 'memsuite help' for the list"
    fi
    local f
    f=$(ms_command_file "$1")
    ms_help_usage "$f"
    echo
    ms_help_summary "$f"
    local text
    text=$(ms_help_text "$f")
    if [ -n "$text" ]; then
        echo
        printf '%s\n' "$text"
    fi
}

# For subcommands: print the usage lines and exit 2 (bad call) or 0 (--help).
ms_cmd_help() { ms_help_command "$MS_CMD"; exit 0; }
ms_cmd_usage() {
    ms_help_usage "$(ms_command_file "$MS_CMD")" >&2
    exit "$MS_EX_USAGE"
}
