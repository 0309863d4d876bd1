# Summary: show, apply or restore an OS tuning profile (for before/after comparisons)
# Usage: memsuite profile list
#        memsuite profile show NAME
#        memsuite profile apply NAME [--strict]
#        memsuite profile restore [NAME]
#
# Profiles are small key=value files in scripts/profiles/NAME.profile (or
# MEMSUITE_PROFILES), documented by their comment lines.  NAME is a name
# (letters, digits, _ and -), never a path (exit 2).  Keys:
#   vm.swappiness, kernel.numa_balancing, vm.zone_reclaim_mode,
#   vm.overcommit_memory, vm.dirty_ratio, vm.dirty_background_ratio
#   (sysctl), thp, thp.defrag (transparent huge pages), governor (every
#   CPU), smt (on|off), glibc.tunables (the GLIBC_TUNABLES that memsuite
#   run passes to the benchmarks while the profile is applied; names this
#   glibc does not know, per ld.so --list-tunables, are warned about with
#   the glibc version).  An unknown key or a bad value is an error and
#   nothing changes.
#
#   list      the profiles and their summaries
#   show      the profile's documentation, then each key: profile value,
#             current value, and whether applying would change it
#   apply     as root: save the current values to
#             <state dir>/profile.state, then set the profile's; a knob
#             this machine lacks is skipped with a warning (--strict: an
#             error, nothing changed)
#   restore   put back the saved values and remove the state file
#
# State dir: MEMSUITE_STATE_DIR, else /var/lib/memsuite as root, else
# ~/.local/state/memsuite.  `memsuite run --profile NAME --baseline` runs
# the matrix before and under the profile and compares the two.

ms_use profiles lock enforce

cmd_profile() {
    local action="${1:-}" name="" strict=0
    [ -n "$action" ] || ms_cmd_usage
    shift
    case "$action" in
        -h|--help) ms_cmd_help ;;
        list|show|apply|restore) ;;
        *) ms_usage_error "unknown action '$action'; use list, show, apply or restore" ;;
    esac
    while [ $# -gt 0 ]; do
        case "$1" in
            --strict) strict=1 ;;
            -h|--help) ms_cmd_help ;;
            -*) ms_unknown_option "$1" ;;
            *) [ -z "$name" ] || ms_usage_error "one profile name only (got '$name' and '$1')"
               name="$1" ;;
        esac
        shift
    done
    case "$action" in
        list)
            [ -z "$name" ] || ms_usage_error "list takes no name"
            local n
            while IFS= read -r n; do
                printf '%-12s %s\n' "$n" "$(ms_profile_summary "$(ms_profile_dir)/$n.profile")"
            done < <(ms_profile_names)
            ;;
        show)
            [ -n "$name" ] || ms_usage_error "show needs a profile name; try 'memsuite profile list'"
            ms_profile_load "$name"
            ms_profile_show
            ;;
        apply)
            [ -n "$name" ] || ms_usage_error "apply needs a profile name; try 'memsuite profile list'"
            ms_profile_load "$name"
            ms_is_root || ms_die "$MS_EX_ENV" "applying a profile needs root (it writes sysctl and sysfs knobs); run as root"
            ms_lock_take
            ms_enforce_recover  # else a killed --enforce run's values would be saved as the prior ones
            ms_profile_apply "$strict"
            MS_PROF_STATE=""
            ms_note "profile $MS_PROF_NAME applied; prior values saved in $(ms_profile_state_file); undo with: memsuite profile restore $MS_PROF_NAME"
            ;;
        restore)
            [ "$strict" = 0 ] || ms_usage_error "--strict is for apply"
            ms_is_root || ms_die "$MS_EX_ENV" "restoring a profile needs root (it writes sysctl and sysfs knobs); run as root"
            ms_lock_take
            local rc=0
            ms_profile_restore_state "$name" || rc=$?
            [ "$rc" -eq 0 ] && ms_note "prior values restored"
            return "$rc"
            ;;
    esac
}

ms_profile_show() {
    local i key val knob cur state c
    printf 'profile %s (%s)\n' "$MS_PROF_NAME" "$MS_PROF_FILE"
    sed -n 's/^# \{0,1\}//p' "$MS_PROF_FILE" | sed 's/^/  /'
    echo
    printf '%-24s %-40s %-20s %s\n' key profile current ""
    for i in "${!MS_PROF_KEYS[@]}"; do
        key="${MS_PROF_KEYS[$i]}" val="${MS_PROF_VALS[$i]}"
        case "$(ms_profile_key_field "$key" 2)" in
            env)
                cur="${GLIBC_TUNABLES:-$(ms_profile_active_tunables)}"
                state="(passed to benchmarks as GLIBC_TUNABLES)"
                ;;
            cpus)
                cur=$(while IFS= read -r c; do ms_knob_get "governor.cpu$c" 2>/dev/null || true; done < <(ms_cpu_online_list) | sort -u | paste -sd/ -)
                if [ -z "$cur" ]; then cur="unavailable"; state="(skipped: no cpufreq)"
                elif [ "$cur" = "$val" ]; then state="same"; else state="would change"; fi
                ;;
            *)
                knob="$key"
                if cur=$(ms_knob_get "$knob"); then
                    if [ "$cur" = "$val" ]; then state="same"; else state="would change"; fi
                else
                    state="(skipped: $cur)"; cur="unavailable"
                fi
                ;;
        esac
        printf '%-24s %-40s %-20s %s\n' "$key" "$val" "${cur:-none}" "$state"
    done
    local active
    if active=$(ms_profile_active); then
        printf '\napplied now: %s (restore with: memsuite profile restore %s)\n' "$active" "$active"
    fi
}
