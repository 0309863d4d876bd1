# shellcheck shell=bash
# knobs: the system settings memsuite may change, and saved-state files.
#
# Knob names:
#   governor.cpuN          <sysfs>/devices/system/cpu/cpuN/cpufreq/scaling_governor
#   smt                    <sysfs>/devices/system/cpu/smt/control
#   thp, thp.defrag        <sysfs>/kernel/mm/transparent_hugepage/{enabled,defrag}
#   vm.X, kernel.X         <procfs>/sys/vm/X, <procfs>/sys/kernel/X (sysctl)
#
# A state file records the values found before a change:
#   #memsuite-state 1
#   profile<TAB>NAME               (profile state only)
#   env<TAB>GLIBC_TUNABLES<TAB>V   (exported to benchmarks while applied)
#   knob<TAB>NAME<TAB>VALUE        (restored in reverse order)

ms_use sysfs

ms_knob_path() {
    local k="$1"
    case "$k" in
        governor.cpu[0-9]*) ms_sysfs "/devices/system/cpu/cpu${k#governor.cpu}/cpufreq/scaling_governor" ;;
        smt) ms_sysfs /devices/system/cpu/smt/control ;;
        thp) ms_sysfs /kernel/mm/transparent_hugepage/enabled ;;
        thp.defrag) ms_sysfs /kernel/mm/transparent_hugepage/defrag ;;
        vm.*|kernel.*)
            [[ "$k" =~ ^[a-z]+(\.[a-z0-9_]+)+$ ]] || return 1
            ms_procfs "/sys/${k//.//}" ;;
        *) return 1 ;;
    esac
}

# ms_knob_get KNOB -> current value; status 1 (with the reason printed)
# when the machine lacks it.
ms_knob_get() {
    local k="$1" p v
    p=$(ms_knob_path "$k") || { echo "unknown knob"; return 1; }
    if [ ! -e "$p" ]; then
        case "$k" in
            governor.*) echo "no cpufreq for ${k#governor.} ($p missing: VM or no cpufreq driver)" ;;
            smt) echo "no SMT control ($p missing)" ;;
            thp*) echo "no transparent hugepages ($p missing)" ;;
            *) echo "$k not present ($p missing)" ;;
        esac
        return 1
    fi
    v=$(ms_read_line "$p") || {
        local why
        why=$(ms_fact_why "$p") || why="empty"
        echo "cannot read $p: unavailable: $why"
        return 1
    }
    case "$k" in
        thp|thp.defrag) ms_bracketed "$v" ;;
        *) printf '%s\n' "$v" ;;
    esac
}

# ms_knob_choices KNOB -> allowed values when the kernel lists them
ms_knob_choices() {
    local k="$1" p v
    case "$k" in
        thp|thp.defrag)
            p=$(ms_knob_path "$k") && v=$(ms_read_line "$p") && ms_bracket_choices "$v" ;;
        governor.cpu[0-9]*)
            p="$(ms_sysfs "/devices/system/cpu/cpu${k#governor.cpu}/cpufreq/scaling_available_governors")"
            ms_read_line "$p" ;;
        *) return 1 ;;
    esac
}

# ms_knob_set KNOB VALUE; status 1 with the reason printed on failure.
# A governor the sysfs file refuses is tried once more with cpupower, but
# only on the real /sys: with MEMSUITE_SYSFS set (a fixture tree) cpupower
# would change this machine, not the tree.  Whatever wrote it, the value
# is read back: a write that did not take is a failure.
ms_knob_set() {
    local k="$1" v="$2" p got how
    p=$(ms_knob_path "$k") || { echo "unknown knob $k"; return 1; }
    if [ ! -e "$p" ]; then echo "$p missing"; return 1; fi
    # a FIFO or a device in its place would block the write or take it
    # elsewhere: only a fact file is written
    local why
    if why=$(ms_fact_why "$p"); then echo "cannot write '$v' to $p: $why"; return 1; fi
    how="wrote '$v' to $p"
    if ! { printf '%s\n' "$v" >"$p"; } 2>/dev/null; then
        if [[ "$k" != governor.cpu* ]] || [ -n "${MEMSUITE_SYSFS:-}" ] ||
            ! command -v cpupower >/dev/null 2>&1; then
            echo "cannot write '$v' to $p"
            return 1
        fi
        if ! cpupower -c "${k#governor.cpu}" frequency-set -g "$v" >/dev/null 2>&1; then
            echo "cannot write '$v' to $p, and cpupower -c ${k#governor.cpu} frequency-set -g $v failed"
            return 1
        fi
        how="cpupower set '$v' for ${k#governor.}"
    fi
    if ! got=$(ms_knob_get "$k"); then
        echo "$how but it cannot be read back: $got"
        return 1
    fi
    if [ "$got" != "$v" ]; then
        echo "$how but $p reads back '$got'"
        return 1
    fi
}

# --- state files ---
ms_state_new() {       # ms_state_new FILE: start an empty state file
    local dir
    dir=$(dirname -- "$1")
    mkdir -p -- "$dir" 2>/dev/null ||
        ms_die "$MS_EX_ENV" "cannot create the state directory $dir; set MEMSUITE_STATE_DIR to a writable directory"
    ms_out_write "$1" printf '#memsuite-state 1\n' 2>/dev/null ||
        ms_die "$MS_EX_ENV" "cannot write the state file $1; set MEMSUITE_STATE_DIR to a writable directory"
}
ms_state_add() {       # ms_state_add FILE KIND FIELD [FIELD]
    local f="$1"
    shift
    local IFS=$'\t'
    printf '%s\n' "$*" >>"$f"
}
# ms_state_save_knob FILE KNOB: record the current value (fails if absent)
ms_state_save_knob() {
    local v
    v=$(ms_knob_get "$2") || { printf '%s\n' "$v"; return 1; }
    ms_state_add "$1" knob "$2" "$v"
}
ms_state_get() {       # ms_state_get FILE KIND [FIELD] -> next field(s)
    awk -F '\t' -v k="$2" -v f="${3:-}" '
        $1 == k && (f == "" || $2 == f) { print (f == "" ? $2 : $3); exit }' "$1"
}
ms_state_knobs() {     # "knob<TAB>value" lines in saved order
    awk -F '\t' '$1 == "knob" { print $2 "\t" $3 }' "$1"
}
ms_state_valid() {
    [ -r "$1" ] && [ "$(head -n 1 "$1")" = "#memsuite-state 1" ]
}

# ms_state_restore FILE LABEL: write back every saved knob, last first.
# Keeps going after a failure; removes the file when all went back.
# Returns 1 when something could not be restored.
ms_state_restore() {
    local f="$1" label="$2" k v why bad=0 line
    ms_state_valid "$f" || return 0
    local -a lines=()
    mapfile -t lines < <(ms_state_knobs "$f")
    local i
    for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
        line="${lines[$i]}"
        k="${line%%$'\t'*}"
        v="${line#*$'\t'}"
        if why=$(ms_knob_set "$k" "$v"); then
            ms_note "$label: restored $k=$v"
        else
            ms_error "$label: could not restore $k=$v: $why; saved state kept in $f"
            bad=1
        fi
    done
    if [ "$bad" -eq 0 ]; then
        rm -f -- "$f"
        return 0
    fi
    return 1
}
