# shellcheck shell=bash
# profiles: OS tuning profiles (scripts/profiles/NAME.profile), checked
# against a key table before anything changes, applied with the prior
# values saved to <state dir>/profile.state, and restored from it.
#
# Profile file: "# " comment lines (the first "# Summary:" line is its
# summary) and key=value lines.  Keys (anything else is an error):

# key                    kind   check
MS_PROFILE_KEYS='
vm.swappiness            knob   int:0:200
kernel.numa_balancing    knob   int:0:3
vm.zone_reclaim_mode     knob   int:0:7
vm.overcommit_memory     knob   int:0:2
vm.dirty_ratio           knob   int:0:100
vm.dirty_background_ratio knob int:0:100
thp                      knob   enum:always,madvise,never
thp.defrag               knob   enum:always,defer,defer+madvise,madvise,never
governor                 cpus   enum:performance,powersave,ondemand,schedutil,conservative,userspace
smt                      knob   enum:on,off
glibc.tunables           env    tunables
'

ms_use sysfs knobs envdoc

MS_PROF_NAME="" MS_PROF_FILE=""
MS_PROF_KEYS=() MS_PROF_VALS=()
MS_PROF_STATE=""            # set while a run holds an applied profile

ms_profile_dir() {
    if [ -n "${MEMSUITE_PROFILES:-}" ]; then
        printf '%s\n' "$MEMSUITE_PROFILES"
    elif [ -d "$MS_SCRIPTS_DIR/profiles" ]; then
        printf '%s\n' "$MS_SCRIPTS_DIR/profiles"
    else
        printf '%s\n' "$MS_LIB/../profiles"
    fi
}
ms_profile_state_file() { printf '%s/profile.state\n' "$(ms_state_dir)"; }
ms_profile_key_names() { awk 'NF { print $1 }' <<<"$MS_PROFILE_KEYS"; }
ms_profile_key_field() {
    awk -v k="$1" -v c="$2" '$1 == k { print $c; f = 1 } END { exit !f }' <<<"$MS_PROFILE_KEYS"
}
ms_profile_names() {
    local f n
    for f in "$(ms_profile_dir)"/*.profile; do
        [ -f "$f" ] || continue
        n="${f##*/}"
        printf '%s\n' "${n%.profile}"
    done
}

# ms_profile_check_value KEY VALUE -> prints why and returns 1 when invalid
ms_profile_check_value() {
    local check lo hi
    check=$(ms_profile_key_field "$1" 3)
    case "$check" in
        int:*)
            lo="${check#int:}" hi="${lo#*:}" lo="${lo%%:*}"
            if ! [[ "$2" =~ ^[0-9]+$ ]] || [ "${#2}" -gt 6 ] || [ "$2" -lt "$lo" ] || [ "$2" -gt "$hi" ]; then
                echo "must be a whole number $lo..$hi"
                return 1
            fi ;;
        enum:*)
            if [[ ",${check#enum:}," != *",$2,"* ]]; then
                echo "must be one of ${check#enum:}"
                return 1
            fi ;;
        tunables)
            if ! [[ "$2" =~ ^glibc\.[a-z_]+\.[a-z_]+=[0-9A-Za-z_]+(:glibc\.[a-z_]+\.[a-z_]+=[0-9A-Za-z_]+)*$ ]]; then
                echo "must look like glibc.malloc.tcache_count=1024[:glibc.x.y=v]"
                return 1
            fi ;;
    esac
}

# ms_profile_load NAME: parse and validate; dies (exit 2) on any problem,
# before anything is changed.  NAME is a plain name ([A-Za-z0-9_-]) of a
# profile in the profile directory, never a path: a path would let the
# option read any file and print its first line in the error.  Other
# profiles go in a directory named by MEMSUITE_PROFILES.
ms_profile_load() {
    local spec="$1" file line key val n=0
    if [[ "$spec" =~ ^[A-Za-z0-9_-]+$ ]] && [ "${#spec}" -le 100 ]; then
        file="$(ms_profile_dir)/$spec.profile"
    else
        ms_usage_error "invalid profile name $(printf '%q' "${spec:0:100}"): a profile is a name (letters, digits, _ and -) from $(ms_profile_dir), not a path (set MEMSUITE_PROFILES for another directory); choose from: $(ms_profile_names | paste -sd, -)"
    fi
    if [ ! -f "$file" ] || [ ! -r "$file" ]; then
        ms_usage_error "no profile '$spec' ($file); choose from: $(ms_profile_names | paste -sd, -)"
    fi
    MS_PROF_NAME="${file##*/}"
    MS_PROF_NAME="${MS_PROF_NAME%.profile}"
    MS_PROF_FILE="$file"
    MS_PROF_KEYS=() MS_PROF_VALS=()
    local -A seen=()
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        line="${line%$'\r'}"
        [[ "$line" =~ ^[[:space:]]*(#.*)?$ ]] && continue
        if ! [[ "$line" =~ ^[[:space:]]*([A-Za-z0-9_.]+)[[:space:]]*=[[:space:]]*(.*[^[:space:]])[[:space:]]*$ ]]; then
            ms_usage_error "profile $MS_PROF_NAME: $file:$n: expected key=value, got '$line'; nothing was changed"
        fi
        key="${BASH_REMATCH[1]}" val="${BASH_REMATCH[2]}"
        if ! ms_profile_key_field "$key" 1 >/dev/null; then
            ms_usage_error "profile $MS_PROF_NAME: $file:$n: unknown key '$key' (known: $(ms_profile_key_names | paste -sd' ' -)); nothing was changed"
        fi
        [ -n "${seen[$key]:-}" ] &&
            ms_usage_error "profile $MS_PROF_NAME: $file:$n: '$key' set twice; nothing was changed"
        seen[$key]=1
        local why
        why=$(ms_profile_check_value "$key" "$val") ||
            ms_usage_error "profile $MS_PROF_NAME: $file:$n: $key=$val: $why; nothing was changed"
        MS_PROF_KEYS+=("$key")
        MS_PROF_VALS+=("$val")
    done <"$file"
    [ "${#MS_PROF_KEYS[@]}" -gt 0 ] ||
        ms_usage_error "profile $MS_PROF_NAME: $file sets nothing"
    ms_tunables_warn "profile $MS_PROF_NAME: glibc.tunables" "$(ms_profile_tunables_value)"
}

ms_profile_summary() { sed -n 's/^# *Summary: *//p' "$1" | head -n 1; }

# The knobs a loaded profile touches: "knob<TAB>value" lines.
ms_profile_knob_plan() {
    local i key val c
    for i in "${!MS_PROF_KEYS[@]}"; do
        key="${MS_PROF_KEYS[$i]}" val="${MS_PROF_VALS[$i]}"
        case "$(ms_profile_key_field "$key" 2)" in
            knob) printf '%s\t%s\n' "$key" "$val" ;;
            cpus) while IFS= read -r c; do printf 'governor.cpu%s\t%s\n' "$c" "$val"; done < <(ms_cpu_online_list) ;;
        esac
    done
}
ms_profile_tunables_value() {
    local i
    for i in "${!MS_PROF_KEYS[@]}"; do
        [ "${MS_PROF_KEYS[$i]}" = glibc.tunables ] && printf '%s\n' "${MS_PROF_VALS[$i]}"
    done
    return 0
}

# The applied profile (from the state file), or nothing.
ms_profile_active() {
    local f
    f=$(ms_profile_state_file)
    ms_state_valid "$f" || return 1
    ms_state_get "$f" profile
}
ms_profile_active_tunables() {
    local f
    f=$(ms_profile_state_file)
    ms_state_valid "$f" || return 0
    ms_state_get "$f" env GLIBC_TUNABLES
}

# ms_profile_apply STRICT [run]: apply the loaded profile.  Needs root.
# Saves all prior values first; a failure half way restores them and exits
# 3.  "run" marks the state as held by a run (memsuite run --profile) for
# its duration only: if that run dies unrestored (SIGKILL), the next run,
# check or apply puts the values back (ms_profile_recover_run).
ms_profile_apply() {
    local strict="$1" scope="${2:-}" state k v why active
    local -a plan=() skipped=()
    ms_is_root || ms_die "$MS_EX_ENV" "applying a profile needs root (it writes sysctl and sysfs knobs); run as root"
    state=$(ms_profile_state_file)
    if active=$(ms_profile_active); then
        ms_die "$MS_EX_ENV" "profile '$active' is already applied (state in $state); run 'memsuite profile restore $active' first"
    fi
    while IFS=$'\t' read -r k v; do
        if why=$(ms_knob_get "$k"); then
            if [[ "$k" == thp* ]]; then
                local choices
                choices=$(ms_knob_choices "$k") || choices=""
                if [ -n "$choices" ] && [[ " $choices " != *" $v "* ]]; then
                    ms_die "$MS_EX_ENV" "profile $MS_PROF_NAME: $k=$v: this kernel offers: $choices; nothing was changed"
                fi
            fi
            plan+=("$k=$v")
        else
            skipped+=("$k: $why")
        fi
    done < <(ms_profile_knob_plan)
    for why in "${skipped[@]}"; do
        [ "$strict" = 1 ] && ms_die "$MS_EX_ENV" "profile $MS_PROF_NAME: --strict: cannot apply $why; nothing was changed"
        ms_warn "profile $MS_PROF_NAME: skipped $why"
    done
    ms_state_new "$state"
    ms_state_add "$state" profile "$MS_PROF_NAME"
    [ "$scope" = run ] && ms_state_add "$state" scope run
    v=$(ms_profile_tunables_value)
    [ -n "$v" ] && ms_state_add "$state" env GLIBC_TUNABLES "$v"
    local item
    for item in "${plan[@]}"; do
        if ! why=$(ms_state_save_knob "$state" "${item%%=*}"); then
            rm -f -- "$state"
            ms_die "$MS_EX_ENV" "profile $MS_PROF_NAME: cannot save ${item%%=*}: $why; nothing was changed"
        fi
    done
    MS_PROF_STATE="$state"
    for item in "${plan[@]}"; do
        k="${item%%=*}" v="${item#*=}"
        if ! why=$(ms_knob_set "$k" "$v"); then
            ms_error "profile $MS_PROF_NAME: cannot set $k=$v: $why; restoring the prior values"
            ms_state_restore "$state" "profile $MS_PROF_NAME" || true
            MS_PROF_STATE=""
            exit "$MS_EX_ENV"
        fi
        ms_note "profile $MS_PROF_NAME: $k=$v"
    done
}

# ms_profile_restore_state [NAME]: restore what the state file saved.
ms_profile_restore_state() {
    local want="${1:-}" state active
    state=$(ms_profile_state_file)
    if ! active=$(ms_profile_active); then
        ms_error "no applied profile to restore (no state in $state)"
        return 1
    fi
    if [ -n "$want" ] && [ "$want" != "$active" ]; then
        ms_error "the applied profile is '$active', not '$want'; run 'memsuite profile restore $active'"
        return 2
    fi
    ms_state_restore "$state" "profile $active" || return 1
    MS_PROF_STATE=""
}

# ms_profile_recover_run: a profile state that a run applied for its own
# duration (scope run) and left behind means the run was killed before its
# exit hook (SIGKILL, power loss): as root restore it (exit 3 when that
# fails); without root warn.  A profile applied with `memsuite profile
# apply` has no scope line and stays applied.  Call with the lock held.
ms_profile_recover_run() {
    local state name
    state=$(ms_profile_state_file)
    ms_state_valid "$state" || return 0
    [ "$(ms_state_get "$state" scope)" = run ] || return 0
    name=$(ms_state_get "$state" profile)
    if ! ms_is_root; then
        ms_warn "profile: $state was left by a 'memsuite run --profile $name' that did not finish; its values may still be set; rerun as root (it restores them first) or run 'memsuite profile restore' as root"
        return 0
    fi
    ms_warn "profile: $state was left by a 'memsuite run --profile $name' that did not finish; restoring it first"
    ms_state_restore "$state" "profile $name" ||
        ms_die "$MS_EX_ENV" "profile: could not restore the state left in $state; fix it by hand, then remove the file"
}

# Exit hook for runs that apply a profile only for their duration.
ms_profile_restore_hook() {
    [ -n "$MS_PROF_STATE" ] || return 0
    ms_state_restore "$MS_PROF_STATE" "profile $MS_PROF_NAME" && MS_PROF_STATE=""
    return 0
}
