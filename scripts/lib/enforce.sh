# shellcheck shell=bash
# enforce: for the duration of a run, governor "performance" on every
# online CPU, SMT off, and optionally a THP mode.  Every value is saved to
# <state dir>/enforce.state BEFORE the first change and restored by an
# exit hook on every exit path (success, failure, set -e abort, SIGINT,
# SIGTERM).  A knob the machine lacks is reported and skipped, or is fatal
# (exit 3) with --strict.  A state file left by a killed run is restored
# first.

ms_use sysfs knobs profiles

MS_ENFORCE_STATE=""
MS_ENFORCE_SUMMARY=""       # what was done, for env.json and the log

ms_enforce_state_file() { printf '%s/enforce.state\n' "$(ms_state_dir)"; }

ms_enforce_restore() {
    [ -n "$MS_ENFORCE_STATE" ] || return 0
    if ms_state_restore "$MS_ENFORCE_STATE" enforce; then
        ms_note "enforce: prior state restored"
    fi
    MS_ENFORCE_STATE=""
}

# ms_enforce_recover: a state file left by a killed --enforce run (SIGKILL,
# power loss) means the governor, SMT or THP may still be as that run set
# them.  Every run and check calls this once it holds the lock (so the file
# is not a live run's): as root it restores the saved values first (exit 3
# when that fails); without root it warns.  A run's own --profile state is
# recovered first (it was applied after the enforce state was saved).
# Call with the lock held.
ms_enforce_recover() {
    local state
    ms_profile_recover_run
    state=$(ms_enforce_state_file)
    ms_state_valid "$state" || return 0
    if ! ms_is_root; then
        ms_warn "enforce: $state was left by an --enforce run that did not finish; the governor/SMT/THP it changed may still be set; run 'memsuite run --enforce' as root (it restores them first) or restore them by hand"
        return 0
    fi
    ms_warn "enforce: $state was left by a run that did not finish; restoring it first"
    ms_state_restore "$state" enforce ||
        ms_die "$MS_EX_ENV" "enforce: could not restore the state left in $state; fix it by hand, then remove the file"
}

# ms_enforce_apply STRICT(0|1) THP_MODE(or "")
ms_enforce_apply() {
    local strict="$1" thp="$2" state c k v why
    local -a plan=() skipped=()
    ms_is_root || ms_die "$MS_EX_ENV" "--enforce needs root (it writes to sysfs); run as root or drop --enforce"
    state=$(ms_enforce_state_file)
    ms_enforce_recover

    # Plan: knob=value pairs, or the reason a knob is skipped.  Every
    # online CPU is looked at: those without cpufreq, or without a
    # performance governor, are named together, and the others still get it.
    local -a cpus nofreq=() noperf=()
    local perf_has=""
    mapfile -t cpus < <(ms_cpu_online_list)
    for c in "${cpus[@]}"; do
        k="governor.cpu$c"
        if ! v=$(ms_knob_get "$k"); then
            nofreq+=("$c")
            continue
        fi
        local choices
        if choices=$(ms_knob_choices "$k") && [[ " $choices " != *" performance "* ]]; then
            noperf+=("$c")
            perf_has=$choices
            continue
        fi
        plan+=("$k=performance")
    done
    [ "${#nofreq[@]}" -eq 0 ] ||
        skipped+=("governor: no cpufreq for CPU(s) $(ms_cpu_ranges "${nofreq[@]}") of ${#cpus[@]} online ($(ms_sysfs /devices/system/cpu)/cpuN/cpufreq missing: VM or no cpufreq driver)")
    [ "${#noperf[@]}" -eq 0 ] ||
        skipped+=("governor: CPU(s) $(ms_cpu_ranges "${noperf[@]}") of ${#cpus[@]} online offer no 'performance' governor (has: $perf_has)")
    if v=$(ms_knob_get smt); then
        case "$v" in
            on) plan+=("smt=off") ;;
            off|forceoff) ;;
            *) skipped+=("smt: control says '$v' (no SMT to switch off)") ;;
        esac
    else
        skipped+=("smt: $v")
    fi
    if [ -n "$thp" ]; then
        if v=$(ms_knob_get thp); then
            local choices
            choices=$(ms_knob_choices thp) || choices=""
            if [ -n "$choices" ] && [[ " $choices " != *" $thp "* ]]; then
                ms_die "$MS_EX_USAGE" "--thp $thp: this kernel offers: $choices"
            fi
            plan+=("thp=$thp")
        else
            skipped+=("thp: $v")
        fi
    fi

    for why in "${skipped[@]}"; do
        if [ "$strict" = 1 ]; then
            ms_die "$MS_EX_ENV" "enforce: --strict: cannot enforce $why"
        fi
        ms_warn "enforce: skipped $why"
    done

    # Save everything first, then change.
    ms_state_new "$state"
    MS_ENFORCE_STATE="$state"
    ms_at_exit ms_enforce_restore
    local item
    for item in "${plan[@]}"; do
        why=$(ms_state_save_knob "$state" "${item%%=*}") ||
            ms_die "$MS_EX_ENV" "enforce: cannot save ${item%%=*}: $why"
    done
    for item in "${plan[@]}"; do
        k="${item%%=*}"
        v="${item#*=}"
        why=$(ms_knob_set "$k" "$v") ||
            ms_die "$MS_EX_ENV" "enforce: cannot set $k=$v: $why; restoring"
    done
    local ngov=0
    for item in "${plan[@]}"; do [[ "$item" == governor.* ]] && ngov=$((ngov + 1)); done
    local -a done_list=()
    [ "$ngov" -gt 0 ] && done_list+=("governor=performance on $ngov cpu(s)")
    for item in "${plan[@]}"; do
        [[ "$item" == governor.* ]] || done_list+=("$item")
    done
    [ "${#done_list[@]}" -gt 0 ] || done_list=("nothing to change")
    MS_ENFORCE_SUMMARY=$(IFS=,; printf '%s' "${done_list[*]}")
    MS_ENFORCE_SUMMARY="${MS_ENFORCE_SUMMARY//,/, }"
    for why in "${skipped[@]}"; do MS_ENFORCE_SUMMARY+="; skipped ${why}"; done
    ms_note "enforce: $MS_ENFORCE_SUMMARY"
}
