# shellcheck shell=bash
# cluster-hosts: node lists.  Slurm hostlist expressions ("n[01-03,7],gpu5",
# "rack[1-2]-n[1-4]") expand to one name per line (the analyser's
# hostlist, scripts/analysis/memsuite_analysis/hostlist.py, holds the
# syntax and the size limit); the expected node list of a cluster run
# comes from --nodes or the Slurm allocation.

ms_use analysis

# ms_hostlist_expand LIST: one name per line, in order, duplicates dropped.
# "@FILE" reads names (one per line, '#' comments, blanks around a name
# ignored) from FILE, which must be a regular file (a FIFO would block).
# Blanks around a comma-separated entry are ignored; white space or a
# control character inside a name is an error, never joined or split.
# Prints an error and returns 1 on a malformed expression or one that
# stands for more names than a node list may have (nothing else printed).
ms_hostlist_expand() {
    local list="$1"
    if [ "${list#@}" != "$list" ]; then
        local f="${list#@}"
        if [ ! -e "$f" ]; then echo "the node list file $(ms_shown "$f") does not exist"; return 1; fi
        if [ ! -f "$f" ]; then
            echo "the node list file $(ms_shown "$f") is $(ms_out_kind_name "$f"), not a regular file; give a file of names, one per line"
            return 1
        fi
        if [ ! -r "$f" ]; then echo "cannot read the node list file $(ms_shown "$f")"; return 1; fi
        sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$f" | awk '!seen[$0]++'
        return 0
    fi
    # A Slurm expression: the analyser parses it (hostlist.py: exact
    # numbers, the whole size checked before a name is made).  The list
    # goes on stdin, as it is (it may hold a newline).
    local rc=0
    printf '%s' "$list" | ms_analyse hostlist || rc=$?
    case "$rc" in
        0) return 0 ;;
        2) return 1 ;;      # the reason printed
        *) echo "the node list could not be expanded: the analyser failed (exit $rc)"; return 1 ;;
    esac
}

# A node name memsuite accepts: a plain host name (letters, digits and
# "._-", starting with a letter or digit), at most MS_HOST_NAME_MAX
# characters so that its report file name (plus the temp suffix) stays
# within NAME_MAX.  Anything else (a line of some other file given as
# @FILE, a shell word, a Slurm bracket) is refused, never used.
MS_HOST_NAME_MAX=200
ms_host_name_ok() {
    [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] && [ "${#1}" -le "$MS_HOST_NAME_MAX" ]
}

# ms_hostlist_check SOURCE: reads names (one per line) on stdin, prints
# them; the first name that is not a plain host name stops it with a
# message naming SOURCE and the entry (escaped, cut short), status 1.
ms_hostlist_check() {
    # One awk pass finds the first bad entry (100,000 names in well under a
    # second; a bash loop over them took seconds).
    local in bad n
    in=$(cat)
    bad=$(awk -v max="$MS_HOST_NAME_MAX" '
        !/^[A-Za-z0-9][A-Za-z0-9._-]*$/ || length($0) > max { print NR; exit }' <<<"$in")
    if [ -n "$bad" ]; then
        n=$(sed -n "${bad}p" <<<"$in")
        printf '%s: entry %d, %s, is not a host name (letters, digits and ._- only, at most %d characters)\n' \
            "$1" "$bad" "$(ms_shown "$n")" "$MS_HOST_NAME_MAX"
        return 1
    fi
    printf '%s\n' "$in"
}

# ms_cluster_expected [NODES_OPTION]: the expected node names, one per
# line; sets MS_CLUSTER_EXPECTED_FROM to where they came from ("--nodes",
# "SLURM_JOB_NODELIST" or "" when there is no list).  Returns 1 with a
# message on a bad list.
ms_cluster_expected() {
    local opt="${1:-}" out
    MS_CLUSTER_EXPECTED_FROM=""
    if [ -n "$opt" ]; then
        out=$(ms_hostlist_expand "$opt") || { printf -- '--nodes: %s\n' "$out"; return 1; }
        if [ -n "$out" ]; then
            out=$(ms_hostlist_check "--nodes" <<<"$out") || { printf '%s\n' "$out"; return 1; }
        fi
        MS_CLUSTER_EXPECTED_FROM="--nodes"
    elif [ -n "${SLURM_JOB_NODELIST:-}" ]; then
        # Slurm's own expansion when it is here; ours otherwise.
        if ! out=$(scontrol show hostnames "$SLURM_JOB_NODELIST" 2>/dev/null) || [ -z "$out" ]; then
            out=$(ms_hostlist_expand "$SLURM_JOB_NODELIST") ||
                { printf 'SLURM_JOB_NODELIST: %s\n' "$out"; return 1; }
        fi
        if [ -n "$out" ]; then
            out=$(ms_hostlist_check SLURM_JOB_NODELIST <<<"$out") || { printf '%s\n' "$out"; return 1; }
        fi
        MS_CLUSTER_EXPECTED_FROM="SLURM_JOB_NODELIST"
    else
        return 0
    fi
    [ -n "$out" ] && printf '%s\n' "$out"
    return 0
}
