# Summary: validate this node against a reference (PASS/FAIL, for health checks)
# Usage: memsuite check --ref FILE [--retries N] [--per-node] [--result FILE]
#        memsuite check --record --ref FILE [--runs N] [--floor PCT] [--per-node]
#                       [--result FILE...] [--bench B] [--size S] [--threads N]
#                       [--reps N] [--bind MODE]
#
# Node validation in the NHC/ReFrame manner.  Runs the benchmark the
# reference describes (its "run" block: bench, size_bytes, threads, reps,
# bind), compares each metric with the expected value and its tolerance,
# and prints one line per metric and one verdict line:
#   memsuite: PASS 4/4 metrics within tolerance on node17
#   memsuite: FAIL 1/4 metrics out of tolerance on node17: Triad.best_rate_mbps 9000.0 < 10800.0
#
#   --ref FILE     the reference (schema memsuite/ref/1; see below)
#   --retries N    rerun up to N more times before declaring FAIL (default 2)
#   --per-node     run once per NUMA node, bound there with numactl
#                  (--cpunodebind=N --membind=N); every node must pass
#   --result FILE  check an existing result document instead of running
#
#   --record       write FILE (--ref) from this node: the median of --runs
#                  runs (default 5) of each headline metric, with tolerance
#                  max(--floor (default 5%), 1.5 x the observed range);
#                  --result FILE (repeatable) records from existing results
#   --bench, --size, --threads, --reps, --bind   the run to record
#                  (default stream, 4x LLC per array, physical cores, 10
#                  repetitions, spread); a check reuses the reference's.
#                  The benchmark always runs with --strict: a size under
#                  4x the LLC is refused (exit 2 from the tool), since an
#                  acceptance run must not measure caches
#
# Reference format:
#   { "schema": "memsuite/ref/1", "description": "...",
#     "run": { "bench": "stream", "size_bytes": 134217728, "threads": 16,
#              "reps": 10, "bind": "spread" },
#     "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s",
#                    "expected": 12000, "lower_pct": 10, "upper_pct": 25 } ] }
# A metric passes when expected x (1 - lower_pct/100) <= value <= expected
# x (1 + upper_pct/100); "upper_pct": null leaves it unbounded above (the
# key must be there).  An unknown key is refused (exit 2): a misspelt one
# would loosen the check.  A result whose unit differs from the metric's
# "unit" is a FAIL.
#
# A result that is incomplete, failed its own validation ("validation":
# {"passed": false}) or holds a headline value that is no measurement (not
# a number above 0 and below 1e15) is a FAIL that says so.  --record
# refuses such results (exit 2), results of different runs (tool, size,
# threads, reps), --floor above 100, and values outside (0, 1e15); it
# never writes a reference that check would refuse (results that vary so
# much that a band exceeds 100%: exit 1, nothing written).
#
# Exit: 0 PASS, 1 FAIL, 2 usage (bad option, empty option value, bad or
# empty reference file, results unfit to record), 3 the environment
# prevents a valid run (tool missing, numactl missing for --per-node,
# benchmark out of resources, the verdict cannot be written to stdout).

ms_use sysfs lists bench results ref lock enforce

cmd_check() {
    local ref="" retries=2 per_node=0 record=0 runs=5 floor=5 v
    local bench="" size="" threads="" reps="" bind=""
    local -a results=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --ref) ms_need_arg "$@"; ref="$2"; shift ;;
            --retries) ms_need_arg "$@"; retries=$(ms_parse_uint_opt "$1" "$2" 100) || ms_usage_error "$retries"; shift ;;
            --per-node) per_node=1 ;;
            --result) ms_need_arg "$@"; results+=("$2"); shift ;;
            --record) record=1 ;;
            --runs) ms_need_arg "$@"; runs=$(ms_parse_uint_opt "$1" "$2" 1000) || ms_usage_error "$runs"; shift ;;
            --floor) ms_need_arg "$@"; floor=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$floor"; shift ;;
            --bench) ms_need_arg "$@"; bench="$2"; shift ;;
            --size) ms_need_arg "$@"; size="$2"; shift ;;
            --threads) ms_need_arg "$@"; threads="$2"; shift ;;
            --reps) ms_need_arg "$@"; reps="$2"; shift ;;
            --bind) ms_need_arg "$@"; bind="$2"; shift ;;
            -h|--help) ms_cmd_help ;;
            *) ms_unknown_option "$1" ;;
        esac
        shift
    done
    [ -n "$ref" ] || ms_usage_error "--ref FILE is required; see 'memsuite help check'"
    [ "$runs" -ge 1 ] || ms_usage_error "--runs: must be at least 1"
    if [ "$(awk -v f="$floor" 'BEGIN { print (f <= 100) }')" != 1 ]; then
        ms_usage_error "--floor: invalid value '$floor'; use a percentage 0..100"
    fi
    local f
    for f in "${results[@]}"; do
        v=$(ms_res_check "$f") || ms_usage_error "--result: $v"
    done

    if [ "$record" = 1 ]; then
        ms_check_record "$ref" "$runs" "$floor" "$per_node" "$bench" "$size" "$threads" "$reps" "$bind" "${results[@]}"
        return
    fi
    if [ -n "$bench$size$threads$reps$bind" ]; then
        ms_usage_error "--bench, --size, --threads, --reps and --bind are for --record; a check runs what the reference says"
    fi
    v=$(ms_ref_validate "$ref") || ms_usage_error "$v"
    if [ "${#results[@]}" -gt 1 ]; then
        ms_usage_error "--result: give one result to check (several are for --record)"
    fi
    if [ "${#results[@]}" -eq 1 ]; then
        [ "$per_node" = 1 ] && ms_usage_error "--per-node runs the benchmark; it does not go with --result"
        ms_check_result_file "$ref" "${results[0]}"
        return
    fi
    ms_check_run "$ref" "$retries" "$per_node"
}

# Evaluate one result; prints lines; returns 0 pass, 1 fail.
# Sets MS_CHECK_SUMMARY to "total<TAB>fails<TAB>text".
ms_check_eval() {
    local ref="$1" res="$2" prefix="$3" line out
    out=$(ms_ref_evaluate "$ref" "$res" "$prefix")
    MS_CHECK_LINES=$(grep -v '^#summary' <<<"$out" || true)
    line=$(grep '^#summary' <<<"$out")
    MS_CHECK_SUMMARY="${line#\#summary$'\t'}"
    [ "$(cut -f 2 <<<"$MS_CHECK_SUMMARY")" = 0 ]
}

ms_check_verdict() {    # PASS|FAIL TOTAL FAILS TEXT EXTRA
    local host
    host=$(ms_hostname)
    if [ "$1" = PASS ]; then
        ms_stdout "$(printf 'memsuite: PASS %s/%s metrics within tolerance on %s%s' "$2" "$2" "$host" "$5")"
    else
        ms_stdout "$(printf 'memsuite: FAIL %s/%s metrics out of tolerance on %s%s: %s' "$3" "$2" "$host" "$5" "$4")"
    fi
}

ms_check_result_file() {
    local ref="$1" res="$2" rbench tool
    rbench=$(ms_ref_run_get "$ref" bench)
    tool=$(ms_res_tool "$res")
    if [ -n "$rbench" ] && [ "${rbench%%:*}" != "$tool" ]; then
        ms_usage_error "result $res is from '$tool' but the reference is for '${rbench%%:*}'"
    fi
    local total fails text why
    # A result that is incomplete or failed its own validation measured
    # nothing trustworthy: the node FAILs (exit 1), as when check runs the
    # benchmark itself and gets such a result.
    if ! why=$(ms_res_problem "$res"); then
        ms_stdout "FAIL  $why" "memsuite: FAIL result $res cannot validate $(ms_hostname): $why"
        return 1
    fi
    if ms_check_eval "$ref" "$res" ""; then
        ms_stdout "$MS_CHECK_LINES"
        IFS=$'\t' read -r total fails text <<<"$MS_CHECK_SUMMARY"
        ms_check_verdict PASS "$total" 0 "" " (result $res)"
        return 0
    fi
    ms_stdout "$MS_CHECK_LINES"
    IFS=$'\t' read -r total fails text <<<"$MS_CHECK_SUMMARY"
    ms_check_verdict FAIL "$total" "$fails" "$text" " (result $res)"
    return 1
}

# The run a reference (or --record options) describes: sets MS_CK_*.
ms_check_setup() {
    local bench="$1" size="$2" threads="$3" reps="$4" bind="$5" v llc=0
    [ -z "$bench" ] && bench=stream
    v=$(ms_bench_split "$bench") || ms_usage_error "bench: $v"
    MS_CK_BENCH="${v%%$'\t'*}" MS_CK_SCEN="${v#*$'\t'}"
    if ms_llc_detect; then llc="$MS_LLC_BYTES"; fi
    MS_CELL_LLC="$llc"
    if [ -z "$size" ]; then
        [ "$llc" -gt 0 ] || ms_die "$MS_EX_ENV" "cannot size the arrays: the LLC is unknown ($MS_LLC_NOTE); pass --size or set MEMSUITE_LLC"
        MS_CK_SIZE=$((4 * llc))
    else
        v=$(ms_parse_size_list "$size" "$llc") || ms_usage_error "size: $v"
        MS_CK_SIZE=$(head -n 1 <<<"$v")
    fi
    if [ -z "$threads" ]; then
        MS_CK_THREADS=$(ms_physical_cores)
    else
        v=$(ms_parse_thread_list "$threads" "$(ms_physical_cores)") || ms_usage_error "threads: $v"
        MS_CK_THREADS=$(head -n 1 <<<"$v")
    fi
    if [ -z "$reps" ]; then
        MS_CK_REPS=10
    else
        MS_CK_REPS=$(ms_parse_uint_opt reps "$reps" 100000) || ms_usage_error "$MS_CK_REPS"
        [ "$MS_CK_REPS" -ge 1 ] || ms_usage_error "reps must be at least 1"
    fi
    MS_CK_BIND="${bind:-spread}"
    local -a nodes
    mapfile -t nodes < <(ms_numa_nodes)
    v=$(ms_bind_check "$MS_CK_BIND" "${nodes[@]}") || ms_usage_error "bind: $v"
    ms_tool_require "$(ms_bench_field "$MS_CK_BENCH" 2)" >/dev/null
}

# ms_check_once BIND OUTFILE: run the benchmark once; returns its status.
ms_check_once() {
    local bind="$1" out="$2" log
    log=$(ms_mktemp)
    ms_cell_command "$MS_CK_BENCH" "$MS_CK_SCEN" "$MS_CK_SIZE" "$MS_CK_THREADS" "$MS_CK_REPS" "$bind" "" "$out"
    ms_note "running: $(ms_quote_cmd "${MS_CMDV[@]}")"
    local rc=0
    ms_run_child "$log" "${MS_CMDV[@]}" || rc=$?
    MS_CHECK_LOG_TAIL=$(tail -n 1 "$log" 2>/dev/null || true)
    if [ "$rc" -eq 0 ]; then
        local why
        if ! why=$(ms_res_check "$out"); then
            MS_CHECK_LOG_TAIL="$why"
            return 1
        fi
        why=$(ms_res_problem "$out") || { MS_CHECK_LOG_TAIL="$why"; return 1; }
    fi
    return "$rc"
}

ms_check_binds() {      # PER_NODE DEFAULT_BIND -> the binds to run
    if [ "$1" = 1 ]; then
        ms_require_cmd numactl "--per-node needs it: apt-get install numactl"
        local n
        while IFS= read -r n; do printf 'node:%s\n' "$n"; done < <(ms_numa_nodes)
    else
        printf '%s\n' "$2"
    fi
}

ms_check_run() {
    local ref="$1" retries="$2" per_node="$3"
    ms_check_setup "$(ms_ref_run_get "$ref" bench)" "$(ms_ref_run_get "$ref" size_bytes)" \
        "$(ms_ref_run_get "$ref" threads)" "$(ms_ref_run_get "$ref" reps)" "$(ms_ref_run_get "$ref" bind)"
    local -a binds
    mapfile -t binds < <(ms_check_binds "$per_node" "$MS_CK_BIND")
    [ "${#binds[@]}" -gt 0 ] || ms_die "$MS_EX_ENV" "--per-node: no NUMA node with CPUs under $(ms_sysfs /devices/system/node)"
    ms_lock_take
    ms_enforce_recover     # a killed --enforce run's knobs go back first
    local bind prefix attempt rc out total=0 fails=0 text="" t f x all_lines=""
    for bind in "${binds[@]}"; do
        prefix=""
        [ "$per_node" = 1 ] && prefix="node${bind#node:}: "
        for ((attempt = 1; attempt <= retries + 1; attempt++)); do
            out=$(ms_mktemp)
            rc=0
            ms_check_once "$bind" "$out" || rc=$?
            if [ "$rc" -ge 2 ]; then
                ms_die "$MS_EX_ENV" "${prefix}the benchmark could not run (exit $rc): $MS_CHECK_LOG_TAIL"
            fi
            if [ "$rc" -eq 0 ] && ms_check_eval "$ref" "$out" "$prefix"; then
                break
            fi
            if [ "$rc" -ne 0 ]; then
                MS_CHECK_LINES="${prefix}FAIL  benchmark failed (exit $rc): $MS_CHECK_LOG_TAIL"
                MS_CHECK_SUMMARY=$(printf '%s\t1\t%s' "$(ms_ref_metrics "$ref" | wc -l)" "${prefix}benchmark failed (exit $rc)")
            fi
            if [ "$attempt" -le "$retries" ]; then
                ms_note "${prefix}attempt $attempt/$((retries + 1)) failed ($(cut -f 2 <<<"$MS_CHECK_SUMMARY") metric(s) out of tolerance); retrying"
            fi
        done
        all_lines+="$MS_CHECK_LINES"$'\n'
        IFS=$'\t' read -r t f x <<<"$MS_CHECK_SUMMARY"
        total=$((total + t))
        if [ "$f" -gt 0 ]; then
            fails=$((fails + f))
            text+="${text:+; }$x"
        fi
    done
    ms_stdout "${all_lines%$'\n'}"
    local extra
    extra="$(ms_bench_label "$MS_CK_BENCH" "$MS_CK_SCEN") $(ms_human_bytes "$MS_CK_SIZE") x$MS_CK_THREADS"
    [ "$per_node" = 1 ] && extra+=", ${#binds[@]} node(s)"
    if [ "$fails" -eq 0 ]; then
        ms_check_verdict PASS "$total" 0 "" " ($extra)"
        return 0
    fi
    ms_check_verdict FAIL "$total" "$fails" "$text" " ($extra, after $((retries + 1)) attempt(s))"
    return 1
}

ms_check_record() {
    local ref="$1" runs="$2" floor="$3" per_node="$4" bench="$5" size="$6" threads="$7" reps="$8" bind="$9"
    shift 9
    local -a files=("$@")
    local runjson why
    # Before anything is measured: a device, a link to one, a directory
    # or an unwritable place is refused (outfile.sh).
    ms_out_check "$ref" || ms_die "$MS_EX_ENV" "cannot write the reference $MS_OUT_ERR"
    if [ "${#files[@]}" -gt 0 ]; then
        [ "$per_node" = 1 ] && ms_usage_error "--per-node runs the benchmark; it does not go with --result"
        why=$(ms_check_record_inputs "${files[@]}") || ms_usage_error "$why; nothing recorded"
        runjson=$(ms_res_run_block "${files[0]}")
        if [ -n "$bench$size$threads$reps$bind" ]; then
            ms_check_setup "$bench" "$size" "$threads" "$reps" "$bind"
            runjson=$(ms_check_runjson)
        fi
    else
        ms_check_setup "$bench" "$size" "$threads" "$reps" "$bind"
        runjson=$(ms_check_runjson)
        local -a binds
        mapfile -t binds < <(ms_check_binds "$per_node" "$MS_CK_BIND")
        ms_lock_take
        ms_enforce_recover     # a killed --enforce run's knobs go back first
        local i b out rc
        for ((i = 1; i <= runs; i++)); do
            for b in "${binds[@]}"; do
                out=$(ms_mktemp)
                rc=0
                ms_check_once "$b" "$out" || rc=$?
                [ "$rc" -eq 0 ] || ms_die "$MS_EX_ENV" "run $i/$runs ($b) failed (exit $rc): $MS_CHECK_LOG_TAIL; nothing recorded"
                files+=("$out")
            done
            ms_note "recorded run $i/$runs"
        done
    fi
    local rc=0
    why=$(ms_ref_record "$ref" "$floor" "$runjson" "${files[@]}") || rc=$?
    [ "$rc" -eq 0 ] || ms_die "$rc" "could not record the reference: $why"
    ms_note "wrote $ref from ${#files[@]} result(s)"
    # The summary only beside a file: on a descriptor, device or FIFO it
    # would follow the JSON into the same stream (and cannot be read back).
    [ "$MS_OUT_KIND" = atomic ] || return 0
    ms_stdout "$(jq -r '.metrics[] | "  \(.record).\(.metric) expected \(.expected) \(.unit) -\(.lower_pct)%/+\(.upper_pct)%"' "$ref")"
}

ms_check_runjson() {
    jq -n --arg b "$(ms_bench_label "$MS_CK_BENCH" "$MS_CK_SCEN")" --argjson s "$MS_CK_SIZE" \
        --argjson t "$MS_CK_THREADS" --argjson r "$MS_CK_REPS" --arg bind "$MS_CK_BIND" \
        '{ bench: $b, size_bytes: $s, threads: $t, reps: $r, bind: $bind }'
}

# ms_check_record_inputs RESULT...: 0 when the results may make one
# reference: each complete and validated (ms_res_problem), all from the
# same tool and the same run (bench, size, threads, reps: a median over
# 8 MiB and 16 MiB arrays, or over stream and mbw, would be no
# reference).  Else prints why and returns 1.
ms_check_record_inputs() {
    local f why first="" firstf="" run
    for f in "$@"; do
        why=$(ms_res_problem "$f") || { printf 'cannot record from %s: %s\n' "$f" "$why"; return 1; }
        run=$(jq -c --arg tool "$(ms_res_tool "$f")" '. + {tool: $tool}' <<<"$(ms_res_run_block "$f")")
        if [ -z "$firstf" ]; then
            first="$run" firstf="$f"
        elif [ "$run" != "$first" ]; then
            printf 'the results were not made by the same run: %s has %s, %s has %s; record each kind of run separately\n' \
                "$firstf" "$first" "$f" "$run"
            return 1
        fi
    done
}
