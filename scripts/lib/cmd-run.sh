# Summary: run the size x threads matrix and keep every result with its environment
# Usage: memsuite run [--bench LIST] [--sizes LIST] [--threads LIST] [--reps N]
#                     [--cooldown S] [--bind MODE] [--out DIR] [--quick] [--dry-run]
#                     [--enforce [--thp MODE] [--strict]] [--profile NAME [--baseline]]
#                     [--stream-args "ARGS"] [--mbw-args "ARGS"] [--mencal-args "ARGS"]
#        memsuite run --resume DIR [--cooldown S] [--enforce ...]
#
# Runs each benchmark over a matrix of array sizes and thread counts and
# writes a results directory: run.json (version marker and status),
# env.json (memsuite env --json), plan.tsv, commands.txt (the exact
# command of every cell), cells/<id>.json (one result per cell),
# logs/<id>.log and summary.csv.  A progress line with the cell count and
# the ETA goes to stderr.
#
#   --bench LIST     stream, mbw, mencal[:scenario] (default: stream);
#                    a scenario is one of `mencal list` (mencal:sweep is
#                    the memory mountain: one cell, largest size, most
#                    threads), or mencal:randread-sweep, the randread
#                    latency curve (one cell, one thread, largest size;
#                    report --plots draws it); a scenario mencal does
#                    not list is refused (exit 2), --dry-run too
#   --sizes LIST     bytes per array: 64M,1G,... or multiples of the
#                    last-level cache: 1x,4x,8x (the default).  Every
#                    benchmark runs with --strict, so a cell the tool
#                    finds under 4x its LLC is refused (the cell fails);
#                    a size this list puts under 4x LLC on purpose (the
#                    1x row) runs without it, labelled not-standard
#   --threads LIST   default 1,2,4,... up to the physical cores; 'cores'
#                    stands for the core count.  Every tool runs each
#                    count (mbw through its --threads; 1 is classic mbw)
#   --reps N         timed repetitions per cell (default: stream 20,
#                    mbw 10, mencal 5); stream gets --ntimes N+1
#   --cooldown S     seconds to wait between cells (default 5)
#   --bind MODE      none | close | spread (OMP_PLACES=cores and
#                    OMP_PROC_BIND) | node:N (numactl --cpunodebind=N
#                    --membind=N); default spread
#   --out DIR        results directory (default
#                    ./memsuite-results/<host>-<UTC time>); must be empty
#   --resume DIR     finish an interrupted run with its stored plan (a
#                    directory of another memsuite version: a warning,
#                    and run.json lists both in memsuite_versions)
#   --dry-run        print the plan and the commands, each with its
#                    tool's own verdict (its --plan: would run and the
#                    label it would get, or why it would be refused:
#                    then exit 2, as the run would refuse it); run nothing
#   --quick          a smoke run: sizes 1x,4x LLC (at most 256 MiB),
#                    1 repetition, no cooldown, mencal's timed scenarios
#                    shortened (concurrent 1 s, stability 3 x 1 s)
#   --enforce        as root: governor performance on every CPU and SMT
#                    off for the run; the prior state is saved first and
#                    restored on every exit path.  A state left by a run
#                    killed with SIGKILL is restored by the next run or
#                    check (as root; otherwise they warn)
#   --thp MODE       with --enforce: THP mode for the run (always,
#                    madvise, never)
#   --strict         with --enforce: a knob this machine lacks is fatal
#                    (exit 3) instead of skipped
#   --profile NAME   apply an OS profile (memsuite profile) for the run and
#                    restore it afterwards; needs root
#   --baseline       with --profile: run the matrix first as the machine
#                    is (DIR/baseline), then under the profile
#                    (DIR/<profile>), then compare them (DIR/compare.txt)
#   Each cell is watched: the THP policy it ran under and a throttling
#   verdict (CPU frequency every MEMSUITE_THROTTLE_INTERVAL s from
#   scaling_cur_freq or /proc/cpuinfo, thermal_throttle counters; a drop
#   beyond MEMSUITE_THROTTLE_PCT % warns) go to run.json cell_env, the
#   samples to logs/<id>.freq.tsv.  GLIBC_TUNABLES names this glibc does
#   not know are warned about (ld.so --list-tunables).
#   --stream-args "ARGS", --mbw-args "ARGS", --mencal-args "ARGS"
#                    extra options for every cell of that tool, e.g.
#                    --stream-args "--nt-stores --hugepages madvise"
#                    (a tuned matrix).  Split at spaces; quotes are not
#                    interpreted.  Options memsuite sets itself (size,
#                    reps, threads, binding, output) are refused with the
#                    run option to use; the rest is checked by the tool's
#                    --plan of a 1 MiB cell before the matrix, and a
#                    refusal is a usage error with the tool's message.
#                    Recorded in run.json (config.tool_args), in each
#                    cell's command, and shown by memsuite report
#
# Exit: 0 every cell ran, 1 a cell failed, 2 usage, 3 the environment
# prevents a valid run (tool not built, no root for --enforce, lock held,
# unwritable directory).  Interrupted: 130 (SIGINT) or 143 (SIGTERM), with
# the results directory marked incomplete.

ms_use sysfs lists bench results rundir lock enforce knobs throttle envdoc

MS_RUN_BENCHES=()   # "name<TAB>scenario"
MS_RUN_SIZES=()
MS_RUN_THREADS=()
MS_RUN_REPS=""      # "" = per-bench default
MS_RUN_COOLDOWN=5
MS_RUN_BIND=spread
MS_RUN_TUNABLES=""
MS_RUN_DIR=""       # the results dir being written (for the exit hook)
MS_RUN_ARGS=()
MS_RUN_FAILED=0     # set when a cell failed (the run goes on)

cmd_run() {
    local benches="stream" sizes="" threads="" reps="" cooldown="" bind="spread"
    local out="" resume="" dry=0 quick=0 enforce=0 thp="" strict=0 profile="" baseline=0
    local -a xargs=()     # --<tool>-args pairs, checked after the loop
    MS_RUN_ARGS=("$@")
    MS_CELL_CACHE_OK=1      # the sizes list may put cells in cache on purpose
    while [ $# -gt 0 ]; do
        case "$1" in
            --bench|--benches) ms_need_arg "$@"; benches="$2"; shift ;;
            --sizes) ms_need_arg "$@"; sizes="$2"; shift ;;
            --threads) ms_need_arg "$@"; threads="$2"; shift ;;
            --reps) ms_need_arg "$@"; reps="$2"; shift ;;
            --cooldown) ms_need_arg "$@"; cooldown="$2"; shift ;;
            --bind) ms_need_arg "$@"; bind="$2"; shift ;;
            --out|-o) ms_need_arg "$@"; out="$2"; shift ;;
            --resume) ms_need_arg "$@"; resume="$2"; shift ;;
            --dry-run|-n) dry=1 ;;
            --quick) quick=1 ;;
            --enforce) enforce=1 ;;
            --thp) ms_need_arg "$@"; thp="$2"; shift ;;
            --strict) strict=1 ;;
            --profile) ms_need_arg "$@"; profile="$2"; shift ;;
            --baseline) baseline=1 ;;
            --stream-args|--mbw-args|--mencal-args)
                ms_need_arg "$@"; xargs+=("$1" "$2"); shift ;;
            -h|--help) ms_cmd_help ;;
            *) ms_unknown_option "$1" ;;
        esac
        shift
    done

    # --- validate everything before touching anything ---
    local v
    if [ -n "$reps" ]; then
        v=$(ms_parse_uint_opt --reps "$reps" 100000) || ms_usage_error "$v"
        [ "$v" -ge 1 ] || ms_usage_error "--reps: must be at least 1"
        MS_RUN_REPS="$v"
    elif [ "$quick" = 1 ]; then
        MS_RUN_REPS=1
    fi
    MS_CELL_QUICK="$quick"
    if [ -n "$cooldown" ]; then
        v=$(ms_parse_uint_opt --cooldown "$cooldown" 3600) || ms_usage_error "$v"
        MS_RUN_COOLDOWN="$v"
    elif [ "$quick" = 1 ]; then
        MS_RUN_COOLDOWN=0
    fi
    if [ -n "$thp" ]; then
        [ "$enforce" = 1 ] || ms_usage_error "--thp needs --enforce"
        case "$thp" in always|madvise|never) ;; *) ms_usage_error "--thp: invalid mode '$thp'; use always, madvise or never" ;; esac
    fi
    [ "$strict" = 1 ] && [ "$enforce" = 0 ] && ms_usage_error "--strict needs --enforce"
    [ "$baseline" = 1 ] && [ -z "$profile" ] && ms_usage_error "--baseline needs --profile NAME"
    if [ -n "$profile" ]; then
        ms_use profiles
        ms_profile_load "$profile"
    fi

    if [ -n "$resume" ]; then
        [ -n "$out" ] && ms_usage_error "--resume and --out do not go together"
        [ -n "$profile" ] && ms_usage_error "--resume and --profile do not go together; resume DIR/baseline and DIR/<profile> one at a time"
        if [ -n "$sizes$threads$reps" ] || [ "$quick" = 1 ] || [ "$bind" != spread ] || [ "$benches" != stream ] || [ "${#xargs[@]}" -gt 0 ]; then
            ms_usage_error "--resume reuses the stored plan; --bench, --sizes, --threads, --reps, --bind, --quick and --<tool>-args do not apply"
        fi
        ms_run_resume "$resume" "$dry" "$enforce" "$thp" "$strict" "$cooldown"
        return
    fi

    local -a nodes
    mapfile -t nodes < <(ms_numa_nodes)
    v=$(ms_bind_check "$bind" "${nodes[@]}") || ms_usage_error "--bind: $v"
    MS_RUN_BIND="$bind"
    v=$(ms_bench_list_parse "$benches") || ms_usage_error "--bench: $v"
    mapfile -t MS_RUN_BENCHES <<<"$v"
    # an unknown scenario is a usage error before planning (--dry-run too)
    for v in "${MS_RUN_BENCHES[@]}"; do
        v=$(ms_bench_check_scenario "${v%%$'\t'*}" "${v#*$'\t'}") || ms_usage_error "--bench: $v"
    done
    local i tool
    for ((i = 0; i < ${#xargs[@]}; i += 2)); do
        tool="${xargs[i]#--}"
        ms_passthru_set "${tool%-args}" "${xargs[i + 1]}"
    done
    ms_passthru_check_benches "${MS_RUN_BENCHES[@]}"

    local cores llc=0
    cores=$(ms_physical_cores)
    if ms_llc_detect; then llc="$MS_LLC_BYTES"; fi
    MS_CELL_LLC="$llc"
    if [ -z "$sizes" ]; then
        if [ "$llc" -le 0 ]; then
            ms_die "$MS_EX_ENV" "cannot size the arrays: the last-level cache is unknown ($MS_LLC_NOTE); pass --sizes 256M,1G or set MEMSUITE_LLC"
        fi
        if [ "$quick" = 1 ]; then sizes="1x,4x"; else sizes="1x,4x,8x"; fi
    fi
    v=$(ms_parse_size_list "$sizes" "$llc") || ms_usage_error "--sizes: $v"
    mapfile -t MS_RUN_SIZES < <(sort -n <<<"$v")
    if [ "$quick" = 1 ]; then
        local -a capped=()
        for v in "${MS_RUN_SIZES[@]}"; do
            [ "$v" -gt $((256 * 1024 * 1024)) ] && v=$((256 * 1024 * 1024))
            capped+=("$v")
        done
        mapfile -t MS_RUN_SIZES < <(printf '%s\n' "${capped[@]}" | awk '!seen[$0]++')
    fi
    if [ -n "$threads" ]; then
        v=$(ms_parse_thread_list "$threads" "$cores") || ms_usage_error "--threads: $v"
    else
        v=$(ms_default_threads "$cores")
    fi
    mapfile -t MS_RUN_THREADS <<<"$v"

    local plan
    plan=$(ms_mktemp)
    ms_run_plan "$llc" >"$plan"
    [ -s "$plan" ] || ms_die "$MS_EX_ENV" "no cell fits in the available memory; pass smaller --sizes"

    [ -z "$out" ] && out="memsuite-results/$(ms_hostname)-$(TZ=UTC printf '%(%Y%m%dT%H%M%SZ)T' -1)"
    if [ "$dry" = 1 ]; then
        ms_run_print_plan "$plan" "$llc" "$out"
        return 0
    fi

    ms_run_require_tools "$plan"
    ms_passthru_validate "$plan"
    ms_tunables_warn "GLIBC_TUNABLES" "${GLIBC_TUNABLES:-}"
    if [ "$enforce" = 1 ] && ! ms_is_root; then
        ms_die "$MS_EX_ENV" "--enforce needs root (it writes to sysfs); run as root or drop --enforce"
    fi
    if [ -n "$profile" ] && ! ms_is_root; then
        ms_die "$MS_EX_ENV" "--profile needs root (it writes sysctl and sysfs knobs); run as root or drop --profile"
    fi
    ms_lock_take
    ms_enforce_recover     # a killed --enforce run's knobs go back first

    if [ -n "$profile" ] && [ "$baseline" = 1 ]; then
        ms_rundir_create "$out" bare
        ms_rundir_create "$out/baseline"
        ms_rundir_create "$out/$MS_PROF_NAME"
    else
        ms_rundir_create "$out"
    fi
    if [ "$enforce" = 1 ]; then
        ms_use enforce
        ms_enforce_apply "$strict" "$thp"
    fi
    if [ -n "$profile" ] && [ "$baseline" = 1 ]; then
        ms_note "baseline: the matrix as the machine is, into $out/baseline"
        ms_run_new "$out/baseline" "$plan"
        ms_at_exit ms_profile_restore_hook     # before: a signal may come mid-apply
        ms_profile_apply 0 run
        MS_RUN_TUNABLES=$(ms_profile_tunables_value)
        ms_note "profile $MS_PROF_NAME: the matrix again, into $out/$MS_PROF_NAME"
        ms_run_new "$out/$MS_PROF_NAME" "$plan"
        ms_profile_restore_hook
        ms_use compare
        ms_run_write "$out/compare.txt" ms_compare_dirs "$out/baseline" "$out/$MS_PROF_NAME" 0 0
        cat -- "$out/compare.txt"
    elif [ -n "$profile" ]; then
        ms_at_exit ms_profile_restore_hook     # before: a signal may come mid-apply
        ms_profile_apply 0 run
        MS_RUN_TUNABLES=$(ms_profile_tunables_value)
        ms_run_new "$out" "$plan"
        ms_profile_restore_hook
    else
        MS_RUN_TUNABLES=$(ms_run_active_tunables)
        ms_run_new "$out" "$plan"
    fi
    [ "$MS_RUN_FAILED" = 0 ]
}

ms_run_active_tunables() {
    ms_use profiles
    ms_profile_active_tunables
}

# Plan lines "id bench scenario size threads reps" for the configured
# matrix; a cell its tool would refuse for memory (the tool's own --plan,
# ms_cell_memory_refusal) is left out with the tool's message.
ms_run_plan() {
    local llc="$1" line bench scen size t reps why threaded
    local -a ts
    for line in "${MS_RUN_BENCHES[@]}"; do
        bench="${line%%$'\t'*}" scen="${line#*$'\t'}"
        reps=$(ms_bench_reps "$bench" "$MS_RUN_REPS")
        threaded=$(ms_bench_field "$bench" 4)
        case "$threaded" in yes|opt) ts=("${MS_RUN_THREADS[@]}") ;; *) ts=(1) ;; esac
        local -a sz=("${MS_RUN_SIZES[@]}")
        case "$(ms_bench_cells "$scen")" in
            "largest 1") ts=(1) ;;
            "largest most") ts=("$(printf '%s\n' "${MS_RUN_THREADS[@]}" | sort -n | tail -n 1)") ;;
        esac
        if [ "$(ms_bench_cells "$scen")" != matrix ]; then
            sz=("$(printf '%s\n' "${MS_RUN_SIZES[@]}" | sort -n | tail -n 1)")
        fi
        for size in "${sz[@]}"; do
            if ! why=$(ms_cell_memory_refusal "$bench" "$scen" "$size" "${ts[0]}" "$reps"); then
                ms_warn "skipping $(ms_bench_label "$bench" "$scen") at $(ms_human_bytes "$size") per array: $why"
                continue
            fi
            for t in "${ts[@]}"; do
                printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(ms_cell_id "$bench" "$scen" "$size" "$t")" "$bench" "$scen" "$size" "$t" "$reps"
            done
        done
    done
}

ms_run_require_tools() {
    local tool _ bench scen why
    local -A checked=()
    while IFS=$'\t' read -r _ bench scen _; do
        [ -n "${checked[$bench:$scen]:-}" ] && continue
        checked[$bench:$scen]=1
        tool=$(ms_bench_field "$bench" 2)
        ms_tool_require "$tool" >/dev/null
        why=$(ms_bench_check_scenario "$bench" "$scen") || ms_usage_error "--bench: $why"
    done <"$1"
    if [[ "$MS_RUN_BIND" == node:* ]]; then
        ms_require_cmd numactl "--bind node:N needs it: apt-get install numactl"
    fi
}

ms_run_print_plan() {
    local plan="$1" llc="$2" out="$3" n i=0 id bench scen size t reps s v refused=0
    n=$(wc -l <"$plan")
    printf 'memsuite run plan: %s cell(s); bind %s; cooldown %s s\n' "$n" "$MS_RUN_BIND" "$MS_RUN_COOLDOWN"
    if [ "$llc" -gt 0 ]; then
        printf 'LLC %s (%s)\n' "$(ms_human_bytes "$llc")" "$MS_LLC_SOURCE"
    fi
    printf 'sizes per array:'
    for s in "${MS_RUN_SIZES[@]}"; do
        printf ' %s' "$(ms_human_bytes "$s" | tr -d ' ')"
        [ "$llc" -gt 0 ] && printf '(%sx LLC)' "$(awk -v a="$s" -v b="$llc" 'BEGIN { printf "%.3g", a / b }')"
    done
    printf '\nthreads: %s\n' "$(printf '%s\n' "${MS_RUN_THREADS[@]}" | paste -sd, -)"
    v=$(ms_passthru_summary)
    [ -z "$v" ] || printf 'tool arguments: %s\n' "$v"
    while IFS=$'\t' read -r id bench scen size t reps; do
        i=$((i + 1))
        ms_cell_command "$bench" "$scen" "$size" "$t" "$reps" "$MS_RUN_BIND" "$(ms_run_active_tunables)" "$out/cells/$id.json"
        printf '[%s/%s] %s: %s\n' "$i" "$n" "$id" "$(ms_quote_cmd "${MS_CMDV[@]}")"
        v=$(ms_cell_plan_line "$bench" "$scen" "$size" "$t" "$reps") || refused=$((refused + 1))
        [ -z "$v" ] || printf '    %s\n' "$v"
    done <"$plan"
    # the run would fail those cells: the dry run says so with the usage exit
    [ "$refused" = 0 ] || ms_usage_error "$refused of $n cell(s) would be refused by their tool (its plan above); fix the options and dry-run again"
}

# ms_run_write FILE CMD...: CMD's output becomes FILE (outfile.sh), or exit 3.
ms_run_write() {
    local f="$1"
    shift
    ms_out_write "$f" "$@" || ms_die "$MS_EX_ENV" "cannot write ${MS_OUT_ERR:-$f (the command producing it failed)}"
}
ms_run_plan_tsv() {   # PLAN: plan.tsv, with its header, on stdout
    printf '#id\tbench\tscenario\tsize_bytes\tthreads\treps\n'
    cat -- "$1"
}

# Write the marker, env.json and plan, then run every cell.
ms_run_new() {
    local d="$1" plan="$2"
    MS_RUN_DIR="$d"
    ms_at_exit ms_run_mark_stopped
    ms_run_write "$d/plan.tsv" ms_run_plan_tsv "$plan"
    # Bench labels are checked words ([a-z0-9_:-]), sizes and threads numbers.
    local benches="" sizes threads line profile="${MS_PROF_STATE:+$MS_PROF_NAME}"
    # A profile applied before the run (memsuite profile apply) shapes the
    # figures just as much as --profile does.
    [ -n "$profile" ] || profile=$(ms_use profiles; ms_profile_active) || profile=""
    for line in "${MS_RUN_BENCHES[@]}"; do
        benches+="\"$(ms_bench_label "${line%%$'\t'*}" "${line#*$'\t'}")\","
    done
    benches="[${benches%,}]"
    sizes="[$(IFS=,; printf '%s' "${MS_RUN_SIZES[*]}")]"
    threads="[$(IFS=,; printf '%s' "${MS_RUN_THREADS[*]}")]"
    ms_run_write "$d/run.json" jq -n --arg schema "$MS_RUN_SCHEMA" --arg version "$MS_VERSION" --arg created "$(ms_now_utc)" \
        --arg host "$(ms_hostname)" --argjson benches "$benches" --argjson sizes "$sizes" \
        --argjson threads "$threads" --arg reps "$MS_RUN_REPS" --arg bind "$MS_RUN_BIND" \
        --arg cooldown "$MS_RUN_COOLDOWN" --arg tunables "$MS_RUN_TUNABLES" \
        --arg llc "${MS_LLC_BYTES:-0}" --arg enforce "${MS_ENFORCE_SUMMARY:-}" \
        --arg profile "$profile" --argjson toolargs "$(ms_passthru_json)" \
        --arg quick "$MS_CELL_QUICK" --arg cells "$(wc -l <"$plan")" --argjson args "$(ms_json_array "${MS_RUN_ARGS[@]}")" '
        { schema: $schema, memsuite_version: $version, created: $created, host: $host,
          complete: false, status: "running", args: $args,
          config: { benches: $benches, sizes_bytes: $sizes, threads: $threads,
                    reps: (if $reps == "" then null else ($reps | tonumber) end),
                    bind: $bind, cooldown_s: ($cooldown | tonumber), quick: ($quick == "1"),
                    glibc_tunables: (if $tunables == "" then null else $tunables end),
                    llc_bytes: ($llc | tonumber),
                    enforce: (if $enforce == "" then null else $enforce end),
                    profile: (if $profile == "" then null else $profile end),
                    tool_args: $toolargs },
          cells_total: ($cells | tonumber), cells_done: 0, failed: [] }'
    ms_run_write "$d/env.json" ms_env_json
    # created here (a link planted at the name is replaced), appended below
    ms_run_write "$d/commands.txt" printf '# memsuite %s run; every command ran from this directory:\n# cwd: %s\n' "$MS_VERSION" "$(pwd)"
    ms_run_matrix "$d"
}

ms_run_resume() {
    local d="$1" dry="$2" enforce="$3" thp="$4" strict="$5" cooldown="$6" bench _ plan
    ms_rundir_check "$d"
    [ "$dry" = 1 ] || ms_lock_dir "$d"   # before its state is read
    if [ -z "$cooldown" ]; then
        MS_RUN_COOLDOWN=$(ms_run_json_get "$d" '.config.cooldown_s // 5')
    fi
    MS_RUN_BIND=$(ms_run_json_get "$d" '.config.bind // "none"')
    MS_RUN_TUNABLES=$(ms_run_json_get "$d" '.config.glibc_tunables // ""')
    MS_CELL_LLC=$(ms_run_json_get "$d" '.config.llc_bytes // 0')
    ms_passthru_load_json "$(jq -c '.config.tool_args // {}' "$d/run.json")"
    if [ "$(ms_run_json_get "$d" '.config.quick // false')" = true ]; then MS_CELL_QUICK=1; fi
    if [ "$(ms_run_json_get "$d" '.complete')" = true ]; then
        ms_note "$d is already complete; nothing to resume"
        return 0
    fi
    plan=$(ms_mktemp)
    ms_rundir_cells "$d" >"$plan"
    if [ "$dry" = 1 ]; then
        local id scen size t reps
        while IFS=$'\t' read -r id bench scen size t reps; do
            ms_rundir_cell_done "$d" "$id" "$bench" "$scen" && continue
            ms_cell_command "$bench" "$scen" "$size" "$t" "$reps" "$MS_RUN_BIND" "$MS_RUN_TUNABLES" "$d/cells/$id.json"
            printf '%s: %s\n' "$id" "$(ms_quote_cmd "${MS_CMDV[@]}")"
        done <"$plan"
        return 0
    fi
    ms_run_require_tools "$plan"
    ms_passthru_validate "$plan"
    ms_tunables_warn "GLIBC_TUNABLES" "${GLIBC_TUNABLES:-}"
    if [ "$enforce" = 1 ]; then
        ms_use enforce
        ms_is_root || ms_die "$MS_EX_ENV" "--enforce needs root (it writes to sysfs); run as root or drop --enforce"
    fi
    ms_lock_take
    ms_enforce_recover     # a killed --enforce run's knobs go back first
    local probe
    probe=$(mktemp "$d/.probe.XXXXXX" 2>/dev/null) ||
        ms_die "$MS_EX_ENV" "results directory $d is not writable"
    rm -f -- "$probe"
    [ "$enforce" = 1 ] && ms_enforce_apply "$strict" "$thp"
    ms_run_write "$d/env-resume.json" ms_env_json
    local wrote
    wrote=$(ms_run_json_get "$d" '.memsuite_version // "unknown"')
    if [ "$wrote" != "$MS_VERSION" ]; then
        ms_warn "$d was started by memsuite $wrote and is resumed by $MS_VERSION; its cells mix two versions (run.json lists both in memsuite_versions)"
    fi
    ms_run_json_update "$d" '.status = "running" | .resumed = ((.resumed // 0) + 1)
        | .memsuite_versions = (((.memsuite_versions // [.memsuite_version]) + [$v]) | unique)' --arg v "$MS_VERSION"
    ms_note "resuming $d: $(ms_rundir_done_count "$d") of $(wc -l <"$plan") cell(s) already done"
    ms_run_matrix "$d"
    [ "$MS_RUN_FAILED" = 0 ]
}

# Exit hook: a run that stops early is marked incomplete.
ms_run_mark_stopped() {
    [ -n "$MS_RUN_DIR" ] || return 0
    local d="$MS_RUN_DIR" status=failed
    MS_RUN_DIR=""
    [ -n "$MS_SIGNAL" ] && status="interrupted by SIG$MS_SIGNAL"
    if [ ! -f "$d/run.json" ] || [ ! -f "$d/plan.tsv" ]; then
        ms_note "$d: stopped ($status) before any cell ran"
        return 0
    fi
    rm -f -- "$d"/cells/*.tmp.* 2>/dev/null
    ms_run_json_update "$d" '.complete = false | .status = $s' --arg s "$status"
    ms_rundir_summary "$d"
    ms_note "$d is incomplete ($status); finish it with: memsuite run --resume $(printf '%q' "$d")"
}

ms_sleep() {
    [ "$1" -gt 0 ] || return 0
    # a background helper (cleanup.sh): it holds none of our descriptors
    ( ms_drop_fds; exec sleep "$1" ) </dev/null >/dev/null 2>&1 &
    MS_CHILD=$!
    wait "$MS_CHILD" || true
    MS_CHILD=""
}

ms_fmt_secs() {
    local s="$1"
    if [ "$s" -ge 3600 ]; then
        printf '%d:%02d:%02d' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
    else
        printf '%d:%02d' $((s / 60)) $((s % 60))
    fi
}

# Run every cell of DIR's plan that has no valid result yet.  A failed
# cell sets MS_RUN_FAILED; the others still run.
ms_run_matrix() {
    local d="$1" id bench scen size t reps total done_n=0 ran=0 failed=0 start now eta res rc
    local -a cells=()
    mapfile -t cells < <(ms_rundir_cells "$d")
    total=${#cells[@]}
    done_n=$(ms_rundir_done_count "$d")
    MS_RUN_DIR="$d"
    ms_at_exit ms_run_mark_stopped
    start=$EPOCHSECONDS
    local line first=1
    for line in "${cells[@]}"; do
        IFS=$'\t' read -r id bench scen size t reps <<<"$line"
        ms_rundir_cell_done "$d" "$id" "$bench" "$scen" && continue
        if [ "$first" = 0 ]; then ms_sleep "$MS_RUN_COOLDOWN"; fi
        first=0
        now=$EPOCHSECONDS
        if [ "$ran" -gt 0 ]; then
            eta=$(ms_fmt_secs $(( (now - start) * (total - done_n - failed) / ran )))
        else
            eta="unknown"
        fi
        ms_note "[$((done_n + failed + 1))/$total] $(ms_bench_label "$bench" "$scen") $(ms_human_bytes "$size") x $t thread(s); elapsed $(ms_fmt_secs $((now - start))), ETA $eta"
        res="$d/cells/$id.json"
        rm -f -- "$res"
        ms_cell_command "$bench" "$scen" "$size" "$t" "$reps" "$MS_RUN_BIND" "$MS_RUN_TUNABLES" "$res"
        printf '# %s\n%s\n' "$id" "$(ms_quote_cmd "${MS_CMDV[@]}")" >>"$d/commands.txt"
        local thp thr
        thp=$(ms_knob_get thp) || thp="unavailable: $thp"
        ms_throttle_start "$d/logs/$id.freq.tsv"
        rc=0
        ms_run_child "$d/logs/$id.log" "${MS_CMDV[@]}" || rc=$?
        ms_throttle_stop
        ms_throttle_sample "$now" >>"$d/logs/$id.freq.tsv"
        thr=$(ms_throttle_verdict "$d/logs/$id.freq.tsv")
        [ "${thr%%$'\t'*}" = warn ] && ms_warn "cell $id: throttling: ${thr#*$'\t'} (samples in $d/logs/$id.freq.tsv)"
        ms_run_json_update "$d" '.cell_env[$id] = { thp_policy: $thp, throttle: { status: $ts, detail: $td } }' \
            --arg id "$id" --arg thp "$thp" --arg ts "${thr%%$'\t'*}" --arg td "${thr#*$'\t'}"
        ran=$((ran + 1))
        local why=""
        if [ "$rc" -ne 0 ]; then
            why="exit $rc"
        else
            why=$(ms_res_state "$res")
            case "$why" in
                complete) why="" ;;
                incomplete) why="the result says it is incomplete" ;;
            esac
        fi
        if [ -z "$why" ]; then
            done_n=$((done_n + 1))
            ms_run_json_update "$d" '.cells_done = $n | .failed -= [$id]' --argjson n "$done_n" --arg id "$id"
        else
            if [ -e "$res" ]; then mv -fT -- "$res" "$d/logs/$id.bad.json"; fi
            failed=$((failed + 1))
            local tail_line
            tail_line=$(tail -n 1 "$d/logs/$id.log" 2>/dev/null || true)
            ms_error "cell $id failed: $why${tail_line:+: $tail_line}; see $d/logs/$id.log"
            ms_run_json_update "$d" '.failed = ((.failed - [$id]) + [$id])' --arg id "$id"
        fi
    done
    MS_RUN_DIR=""
    ms_at_exit_remove ms_run_mark_stopped
    ms_rundir_summary "$d"
    if [ "$failed" -gt 0 ]; then
        ms_run_json_update "$d" '.complete = false | .status = "failed cells"'
        ms_error "$failed of $total cell(s) failed; $d is incomplete; rerun them with: memsuite run --resume $(printf '%q' "$d")"
        MS_RUN_FAILED=1
        return 0
    fi
    ms_run_json_update "$d" '.complete = true | .status = "complete" | .finished = $t' --arg t "$(ms_now_utc)"
    ms_note "done: $total cell(s) in $(ms_fmt_secs $((EPOCHSECONDS - start))); results in $d"
    return 0
}
