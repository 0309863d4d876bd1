# Summary: validate this node against a reference (PASS/FAIL/ERROR, for NHC and health checks)
# Usage: memsuite check --ref FILE [--retries N] [--per-node] [--result FILE]
#                       [--format text|json|prom] [--prom FILE] [--force]
#                       [--ignore-load] [--max-busy PCT] [--max-pressure PCT]
#                       [--max-ce N]
#        memsuite check --record --ref FILE [--runs N] [--floor PCT] [--cap PCT]
#                       [--upper-pct PCT] [--per-node] [--result FILE...]
#                       [--bench B] [--size S] [--threads N] [--reps N] [--bind MODE]
#                       [--ignore-load] [--max-busy PCT] [--max-pressure PCT]
#
# Node validation in the NHC/ReFrame manner.  Runs the benchmark the
# reference describes (its "run" block: bench, size_bytes, threads, reps,
# bind), compares each metric with the expected value and its tolerance,
# and prints one line per metric and one verdict line:
#   memsuite: PASS 4/4 metrics within tolerance on node17 (stream 128.0 MiB x2)
#   memsuite: FAIL 1/4 metrics out of tolerance on node17 (...): Triad.best_rate_mbps 9000.0 < 10800.0
#   memsuite: ERROR node busy: load average 3.10 > 1 on node17 (nothing measured)
#
#   --ref FILE     the reference (schema memsuite/ref/1; see below)
#   --retries N    rerun up to N more times before declaring FAIL (default 1)
#   --per-node     run once per NUMA node, bound there with numactl
#                  (--cpunodebind=N --membind=N); every node must pass
#   --result FILE  check an existing result document instead of running
#   --format F     text (default), json (one memsuite/check/1 document,
#                  docs/result.schema.json) or prom (Prometheus text format)
#   --prom FILE    also write the Prometheus text format to FILE,
#                  atomically (node_exporter's textfile collector directory),
#                  before stdout; an exit before a verdict (bad option or
#                  reference, lock held, tool missing) writes ERROR there
#                  with its exit status, never leaving the last PASS
#   --force        check against a reference made with other settings
#                  (another tool or version, another kind of node)
#                  (see "Settings" below): the differences become notes
#
# Busy node.  Just before it measures (check, and --record), check
# watches the node for a short window (MEMSUITE_BUSY_WINDOW seconds,
# default 1) and the node is busy when, in that window:
#   - processes outside memsuite's own process tree want more CPU (CPU time
#     used plus time spent waiting for a CPU) than --max-busy PCT of the
#     CPUs in the check's affinity mask (default: a quarter of them, at
#     most one CPU);
#   - tasks stalled for a CPU or for memory (/proc/pressure/cpu, memory)
#     more than --max-pressure PCT (default 20) of the window;
#   - or MemAvailable is below twice the memory the benchmark needs.
# Any of them is "ERROR node busy: ..." with exit 5: nothing is measured,
# and the node is not failed for it.  --ignore-load measures anyway.  The
# load average is reported, never the verdict (it lags by a minute: a
# node whose job just ended is idle); --max-load is accepted and ignored.
# The evidence (window, mask, demand and its top process, pressure,
# MemAvailable, load average) is in the JSON "idle" object and in the
# memsuite_check_busy_* Prometheus gauges.
#
# Diagnosis.  --record keeps the memory as built in the reference's
# "memory" block: every DIMM slot (locator, bank, size, type, rated and
# configured speed, rank, manufacturer, part; empty slots too), the
# populated channels per socket, MemTotal per NUMA node, the EDAC counts
# per controller and DIMM, and the peak they imply; a part that cannot be
# had says why (dmidecode needs root, no EDAC driver loaded, a VM).  A
# check reads the same before and after the run and FAILs, naming the
# cause, whatever the bandwidth says, when
#   - a slot populated in the reference is empty now (or the reverse), or
#     its size, type, configured speed or rank differs, or a socket has
#     another number of populated channels: "memory population";
#   - a NUMA node's MemTotal differs by more than 2%: "node memory";
#   - EDAC counts an uncorrected error, or corrected errors that grew
#     during the check or exceed --max-ce N (default 100): naming the
#     controller and the DIMM label.
# The first diagnosis leads the summary; the JSON has them all in
# "diagnosis".  A reference recorded without the block still checks the
# bandwidth, with the note that the population was not recorded.
#
# Settings.  A check runs the reference's run block, so size, threads,
# repetitions and binding are the reference's.  A reference written by
# --record also holds "made_with": the tool and its version, and the
# result's environment (CPU model, sockets, cores, NUMA nodes, SMT, THP,
# huge pages, compiler and flags; kernel and memory total for information).
# When the node's result differs in any but the last two, the reference is
# the wrong yardstick: ERROR, exit 2, naming each difference, unless
# --force.  With --result, a result of another size, thread count,
# repetition count or tool is refused the same way.
#
#   --record       write FILE (--ref) from this node: --runs runs (1..1000,
#                  default 5); per headline metric the median, and a tolerance on
#                  the slow side of max(--floor (default 5%), 1.5 x the
#                  observed range): lower_pct for rates, upper_pct for
#                  latencies.  The fast side is unbounded unless
#                  --upper-pct PCT.  A tolerance over --cap (default 30%)
#                  means the node is too noisy to make a reference: it says
#                  which metric, exits 1 and writes nothing.
#                  --result FILE (repeatable) records from existing results
#   --bench, --size, --threads, --reps, --bind   the run to record
#                  (default stream, 4x LLC per array, physical cores (mbw:
#                  1, classic mbw), 10 repetitions, spread); a check
#                  reuses the reference's.
#                  The benchmark always runs with --strict: a size under
#                  4x the LLC is refused (exit 2 from the tool), since an
#                  acceptance run must not measure caches
#
# Reference format:
#   { "schema": "memsuite/ref/1", "description": "...",
#     "run": { "bench": "stream", "size_bytes": 134217728, "threads": 16,
#              "reps": 10, "bind": "spread" },
#     "made_with": { "memsuite": "0.1.0", "tool": "stream", "version": "0.1.0", "env": {...} },
#     "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s",
#                    "expected": 12000, "lower_pct": 10, "upper_pct": null } ] }
# A metric passes when expected x (1 - lower_pct/100) <= value <= expected
# x (1 + upper_pct/100); "upper_pct": null leaves it unbounded above (the
# key must be there).  An unknown key is refused (exit 2): a misspelt one
# would loosen the check.  A result whose unit differs from the metric's
# "unit" is a FAIL; a metric without "unit" is compared as it is.  FILE
# and --result must be regular files (a FIFO would block: exit 2).
#
# A result that is incomplete, failed its own validation ("validation":
# {"passed": false}) or holds a headline value that is no measurement (not
# a number above 0 and below 1e15) is a FAIL that says so.  --record
# refuses such results (exit 2), results of different runs (tool, size,
# threads, reps), a record without a headline metric, a headline metric
# missing from or unavailable in some results or in two units, --floor
# above --cap, --cap above 100, and values outside (0, 1e15); it never
# writes a reference that check would refuse.
#
# Text from the documents (record names, tool, CPU model) is shown with
# control characters in caret notation; a failed write (full disk or
# device, closed stdout) names its reason and is exit 3.
#
# Exit: 0 PASS, 1 FAIL (or --record: the runs vary beyond --cap), 2 usage
# (bad option, empty option value, bad or empty reference file, results
# unfit to record, a reference made with other settings), 3 the
# environment prevents a valid run (tool missing, numactl missing for
# --per-node, benchmark out of resources, the verdict cannot be written),
# 5 the node is busy (nothing measured).

ms_use sysfs lists bench results ref lock enforce idle verdict envdoc


cmd_check() {
    local ref="" retries=1 per_node=0 record=0 runs=5 floor=5 cap=30 upper="" v
    local bench="" size="" threads="" reps="" bind="" fmt=text prom="" force=0 ignore_load=0
    local max_busy="" max_press="$MS_IDLE_PRESSURE_DEFAULT" max_load="" max_ce=100
    local -a results=()
    # The loop only collects: the first bad option waits in MS_CK_BAD until
    # --prom (wherever it stands) is known, so that this exit, too, leaves
    # an ERROR in the Prometheus file and never the last check's PASS.
    MS_CK_BAD=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --per-node) per_node=1 ;;
            --record) record=1 ;;
            --force) force=1 ;;
            --ignore-load) ignore_load=1 ;;
            -h|--help) ms_cmd_help ;;
            --ref) ms_check_arg "$@" && ref="$2"; shift ;;
            --retries) ms_check_arg "$@" && retries="$2"; shift ;;
            --result) ms_check_arg "$@" && results+=("$2"); shift ;;
            --runs) ms_check_arg "$@" && runs="$2"; shift ;;
            --floor) ms_check_arg "$@" && floor="$2"; shift ;;
            --cap) ms_check_arg "$@" && cap="$2"; shift ;;
            --upper-pct) ms_check_arg "$@" && upper="$2"; shift ;;
            --bench) ms_check_arg "$@" && bench="$2"; shift ;;
            --size) ms_check_arg "$@" && size="$2"; shift ;;
            --threads) ms_check_arg "$@" && threads="$2"; shift ;;
            --reps) ms_check_arg "$@" && reps="$2"; shift ;;
            --bind) ms_check_arg "$@" && bind="$2"; shift ;;
            --format) ms_check_arg "$@" && fmt="$2"; shift ;;
            --prom) ms_check_arg "$@" && prom="$2"; shift ;;
            --max-load) ms_check_arg "$@" && max_load="$2"; shift ;;
            --max-busy) ms_check_arg "$@" && max_busy="$2"; shift ;;
            --max-pressure) ms_check_arg "$@" && max_press="$2"; shift ;;
            --max-ce) ms_check_arg "$@" && max_ce="$2"; shift ;;
            *) ms_check_bad "$(ms_unknown_option_why "$1")" ;;
        esac
        [ $# -eq 0 ] || shift
    done
    # no output may replace what is read (outfile.sh refuses it, exit 2)
    MS_OUT_INPUTS=("${results[@]}")
    [ "$record" = 1 ] || [ -z "$ref" ] || MS_OUT_INPUTS+=("$ref")
    if [ -n "$prom" ]; then
        # unwritable output is the environment's, exit 3 (README, "Output files")
        ms_out_check "$prom" || ms_die "$MS_OUT_STATUS" "--prom: cannot write $MS_OUT_ERR"
        MS_CK_PROM="$prom"
        ms_tmpdir       # removed at exit after the hook, which needs it
        ms_at_exit ms_check_prom_at_exit
    fi
    [ -z "$MS_CK_BAD" ] || ms_usage_error "$MS_CK_BAD"
    retries=$(ms_parse_uint_opt --retries "$retries" 100) || ms_usage_error "$retries"
    runs=$(ms_parse_uint_opt --runs "$runs" 1000 1) || ms_usage_error "$runs"
    MS_CK_MAX_CE=$(ms_parse_uint_opt --max-ce "$max_ce" 1000000000) || ms_usage_error "$MS_CK_MAX_CE"
    floor=$(ms_parse_decimal --floor "$floor") || ms_usage_error "$floor"
    cap=$(ms_parse_decimal --cap "$cap") || ms_usage_error "$cap"
    if [ -n "$upper" ]; then upper=$(ms_parse_decimal --upper-pct "$upper") || ms_usage_error "$upper"; fi
    if [ -n "$max_load" ]; then
        v=$(ms_parse_decimal --max-load "$max_load") || ms_usage_error "$v"
        ms_warn "--max-load: ignored; the load average no longer decides whether the node is busy (see --max-busy)"
    fi
    if [ -n "$max_busy" ]; then max_busy=$(ms_parse_decimal --max-busy "$max_busy") || ms_usage_error "$max_busy"; fi
    max_press=$(ms_parse_decimal --max-pressure "$max_press") || ms_usage_error "$max_press"
    [ -n "$ref" ] || ms_usage_error "--ref FILE is required; see 'memsuite help check'"
    case "$fmt" in
        text|json|prom) ;;
        *) ms_usage_error "--format: invalid value $(ms_shown "$fmt"); use text, json or prom" ;;
    esac
    if [ "$(awk -v c="$cap" 'BEGIN { print (c > 0 && c <= 100) }')" != 1 ]; then
        ms_usage_error "--cap: invalid value '$cap'; use a percentage above 0, at most 100"
    fi
    if [ "$(awk -v f="$floor" -v c="$cap" 'BEGIN { print (f <= c) }')" != 1 ]; then
        ms_usage_error "--floor: invalid value '$floor'; use a percentage 0..--cap ($cap)"
    fi
    if [ -n "$upper" ] && [ "$(awk -v u="$upper" 'BEGIN { print (u <= 1000) }')" != 1 ]; then
        ms_usage_error "--upper-pct: invalid value '$upper'; use a percentage 0..1000"
    fi
    if [ -n "$max_busy" ] && [ "$(awk -v m="$max_busy" 'BEGIN { print (m <= 100) }')" != 1 ]; then
        ms_usage_error "--max-busy: invalid value '$max_busy'; use a percentage 0..100"
    fi
    if [ "$(awk -v m="$max_press" 'BEGIN { print (m <= 100) }')" != 1 ]; then
        ms_usage_error "--max-pressure: invalid value '$max_press'; use a percentage 0..100"
    fi
    ms_idle_window >/dev/null        # a bad MEMSUITE_BUSY_WINDOW before anything runs
    MS_CK_IGNORE_BUSY="$ignore_load" MS_CK_MAX_BUSY="$max_busy" MS_CK_MAX_PRESSURE="$max_press"
    local f
    for f in "${results[@]}"; do
        v=$(ms_res_check "$f") || { [ $? -eq 3 ] && ms_die "$MS_EX_ENV" "--result: $v"; ms_usage_error "--result: $v"; }
    done
    if [ "$record" = 1 ]; then
        if [ "$fmt" != text ] || [ -n "$prom" ]; then
            ms_usage_error "--format and --prom are for a check, not --record"
        fi
        ms_check_record "$ref" "$runs" "$floor" "$cap" "$upper" "$per_node" "$bench" "$size" "$threads" "$reps" "$bind" "${results[@]}"
        return
    fi
    if [ -n "$bench$size$threads$reps$bind" ]; then
        ms_usage_error "--bench, --size, --threads, --reps and --bind are for --record; a check runs what the reference says"
    fi
    [ -z "$upper" ] || ms_usage_error "--upper-pct is for --record; a check uses the reference's bounds"
    v=$(ms_ref_validate "$ref") || ms_ref_refuse $? "$v"
    if [ "${#results[@]}" -gt 1 ]; then
        ms_usage_error "--result: give one result to check (several are for --record)"
    fi
    ms_verdict_begin "$ref"
    MS_CK_FORCE="$force"
    MS_CK_BUILD0=$(ms_mktemp)
    ms_check_build "$MS_CK_BUILD0"
    local rc=0
    if [ "${#results[@]}" -eq 1 ]; then
        [ "$per_node" = 1 ] && ms_usage_error "--per-node runs the benchmark; it does not go with --result"
        ms_check_result_file "$ref" "${results[0]}" || rc=$?
    else
        ms_check_run "$ref" "$retries" "$per_node" || rc=$?
    fi
    # Notes go to stderr in text form (the documents carry them; JSON has
    # the idle looks not taken in idle.skipped).
    if [ "$fmt" = text ] && [ -n "${MS_IDLE_NOTES:-}" ] && [ "${MS_CK_BUSY:-0}" != 1 ]; then
        ms_verdict_note "not every idle look was taken ($MS_IDLE_NOTES); the node was judged idle on the others"
    fi
    if [ -n "$MS_V_NOTES" ] && [ "$fmt" = text ]; then
        ms_printable <<<"$MS_V_NOTES" | while IFS= read -r v; do ms_note "note: $v"; done
    fi
    ms_verdict_emit "$fmt" "$prom"
}

# ms_check_judge REF RESULT PREFIX, or ms_check_judge REF --failed PREFIX
# WHY DETAIL (the benchmark failed, no result): the analyser judges the
# result against the reference (the settings it was made with, then each
# metric: memsuite-analyse check).  Sets MS_CHECK_EVAL (its evaluation
# file, for the verdict) and MS_CHECK_COUNTS ("metrics<TAB>failures");
# its notes (settings that differ) join the verdict's.  Returns 0 pass,
# 1 fail; 2 when the reference was made with other settings (the ERROR
# verdict is set).  A full temp directory is exit 3, named.
ms_check_judge() {
    local ref="$1" res="$2" prefix="$3" out rc=0 line
    MS_CHECK_EVAL=$(ms_mktemp)
    local -a a=(--ref "$ref" --prefix "$prefix" --eval "$MS_CHECK_EVAL")
    if [ "$res" = --failed ]; then
        a+=(--failed "$4" --detail "$5")
    else
        a+=(--result "$res")
        [ "${MS_CK_FORCE:-0}" != 1 ] || a+=(--force)
    fi
    if [ -n "${MS_CK_BUILD0:-}" ]; then
        local now
        now=$(ms_mktemp)
        ms_check_build "$now"
        a+=(--build "$now" --build-before "$MS_CK_BUILD0" --max-ce "$MS_CK_MAX_CE")
    fi
    out=$(ms_analyse_args check "${a[@]}") || rc=$?
    case "$rc" in
        0|1) ;;
        2) ms_check_error "$MS_EX_USAGE" "$out" || true; return 2 ;;
        3) [ -z "$out" ] || ms_die "$MS_EX_ENV" "cannot write in the temp directory $MS_TMP: $out; set TMPDIR to a directory with space"
           ms_die "$MS_EX_ENV" "cannot compare $ref with the result (the analyser failed); nothing judged" ;;
        *) ms_die "$MS_EX_ENV" "cannot compare $ref with the result (the analyser exited $rc); nothing judged" ;;
    esac
    MS_CHECK_COUNTS=$(head -n 1 <<<"$out")
    while IFS= read -r line; do
        [ -z "$line" ] || ms_verdict_note "$line"
    done < <(tail -n +2 <<<"$out")
    return "$rc"
}

# ms_check_build FILE: the memory as built now (memsuite-facts --json
# --only build) into FILE; "{}" when the helper is missing or fails (the
# analyser then says the memory was not read).
ms_check_build() {
    local helper
    if helper=$(ms_helper memsuite-facts) && "$helper" --json --only build >"$1" 2>/dev/null; then
        return 0
    fi
    local err
    # the helper may have failed for want of space: the temp directory's
    # problem is named, never taken for memory that could not be read
    err=$( { printf '{}\n' >"$1"; } 2>&1 ) ||
        ms_die "$MS_EX_ENV" "cannot write in the temp directory $MS_TMP: ${err##*: }; set TMPDIR to a directory with space"
}

# ms_check_arg OPTION [VALUE...]: 0 when the option has a value; else the
# problem goes to MS_CK_BAD (ms_check_bad) and the status is 1.
ms_check_arg() {
    local why
    why=$(ms_arg_problem "$@") && return 0
    ms_check_bad "$why"
    return 1
}
ms_check_bad() { [ -n "$MS_CK_BAD" ] || MS_CK_BAD="$1"; }

# At exit, when --prom FILE was given and no verdict was written (a bad
# option or reference, the lock held, a missing tool, a signal): FILE
# says ERROR with this exit status, never the previous check's PASS.
MS_CK_PROM=""
ms_check_prom_at_exit() {
    [ -n "$MS_CK_PROM" ] && [ "$MS_V_EMITTED" = 0 ] || return 0
    local code="${MS_EXIT_RC:-$MS_EX_ENV}"
    case "$code" in
        0|1) code=$MS_EX_ENV ;;      # no verdict was reached: never PASS or FAIL
        2|3|5) ;;
        *) [ "$code" -ge 128 ] || code=$MS_EX_ENV ;;  # cleanup.sh turns those into 3
    esac
    ms_verdict_set ERROR "$code" "" "memsuite check exited $code before a verdict"
    if ! ms_out_write "$MS_CK_PROM" ms_verdict_prom; then
        ms_error "cannot write the Prometheus file ${MS_OUT_ERR:-$(ms_shown "$MS_CK_PROM"): the analyser could not render it}"
        ms_verdict_prom_drop "$MS_CK_PROM"
    fi
}

# ms_check_error EXIT WHY: the check cannot give PASS or FAIL (busy node,
# benchmark cannot run, wrong reference): verdict ERROR; returns EXIT.
ms_check_error() {
    ms_verdict_set ERROR "$1" "memsuite: ERROR $2 ($(ms_hostname), nothing judged)" "$2"
    return "$1"
}

ms_check_result_file() {
    local ref="$1" res="$2" rbench tool
    rbench=$(ms_ref_run "$ref")
    rbench=${rbench%%$'\n'*}
    tool=$(ms_res_tool "$res")
    if [ -n "$rbench" ] && [ "${rbench%%:*}" != "$tool" ]; then
        ms_usage_error "$(ms_printable <<<"result $res is from '$tool' but the reference is for '${rbench%%:*}'")"
    fi
    MS_V_RUN=$(ms_res_run_block "$res")
    local why rc=0
    # A result that is incomplete or failed its own validation measured
    # nothing trustworthy: the node FAILs (exit 1), as when check runs the
    # benchmark itself and gets such a result.
    if ! why=$(ms_res_problem "$res"); then
        MS_V_LINES="FAIL  $why"
        ms_verdict_set FAIL 1 "memsuite: FAIL result $res cannot validate $(ms_hostname): $why" "$why"
        return 1
    fi
    ms_check_judge "$ref" "$res" "" || rc=$?
    [ "$rc" -ne 2 ] || return "$MS_V_EXIT"
    MS_V_EVALS+=("$MS_CHECK_EVAL")
    MS_V_LABEL="result $res"
    return "$rc"
}

# ms_check_idle_ok NEED_BYTES: 0 when the node may be measured (idle, or
# --ignore-load); else sets the ERROR verdict (exit 5) and returns 1.
ms_check_idle_ok() {
    MS_CK_BUSY=0
    if ms_idle_check "$MS_CK_MAX_BUSY" "$MS_CK_MAX_PRESSURE" "$1"; then
        return 0
    fi
    if [ "$MS_CK_IGNORE_BUSY" = 1 ]; then
        ms_verdict_note "the node is busy ($MS_IDLE_WHY); measured anyway (--ignore-load)"
        return 0
    fi
    MS_CK_BUSY=1
    MS_EXIT_INTENDED="$MS_EX_BUSY"      # cleanup.sh lets it through
    ms_check_error "$MS_EX_BUSY" "node busy: $MS_IDLE_WHY; wait for the node to be idle, or pass --ignore-load" || true
    return 1
}

# The run a reference (or --record options) describes: sets MS_CK_*.
ms_check_setup() {
    local bench="$1" size="$2" threads="$3" reps="$4" bind="$5" v llc=0
    [ -z "$bench" ] && bench=stream
    v=$(ms_bench_split "$bench") || ms_usage_error "bench: $v"
    MS_CK_BENCH="${v%%$'\t'*}" MS_CK_SCEN="${v#*$'\t'}"
    v=$(ms_bench_check_scenario "$MS_CK_BENCH" "$MS_CK_SCEN") || ms_usage_error "bench: $v"
    if ms_llc_detect; then llc="$MS_LLC_BYTES"; fi
    MS_CELL_LLC="$llc"
    if [ -z "$size" ]; then
        [ "$llc" -gt 0 ] || ms_die "$MS_EX_ENV" "cannot size the arrays: the LLC is unknown ($MS_LLC_NOTE); pass --size or set MEMSUITE_LLC"
        MS_CK_SIZE=$((4 * llc))
    else
        v=$(ms_parse_size_list "$size" "$llc") || ms_usage_error "size: $v"
        MS_CK_SIZE=$(head -n 1 <<<"$v")
    fi
    if [ -z "$threads" ] && [ "$(ms_bench_field "$MS_CK_BENCH" 4)" = opt ]; then
        MS_CK_THREADS=1     # classic mbw: one thread unless asked
    elif [ -z "$threads" ]; then
        MS_CK_THREADS=$(ms_physical_cores)
    else
        v=$(ms_parse_thread_list "$threads" "$(ms_physical_cores)") || ms_usage_error "threads: $v"
        MS_CK_THREADS=$(head -n 1 <<<"$v")
    fi
    if [ -z "$reps" ]; then
        MS_CK_REPS=10
    else
        MS_CK_REPS=$(ms_parse_uint_opt reps "$reps" 100000 1) || ms_usage_error "$MS_CK_REPS"
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
        # one look at the result (the analyser starts once): not one at
        # all, or one that cannot stand for a measurement
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
    local -a run
    mapfile -t run < <(ms_ref_run "$ref")
    ms_check_setup "${run[0]:-}" "${run[1]:-}" "${run[2]:-}" "${run[3]:-}" "${run[4]:-}"
    MS_V_RUN=$(ms_check_runjson)
    local -a binds
    mapfile -t binds < <(ms_check_binds "$per_node" "$MS_CK_BIND")
    [ "${#binds[@]}" -gt 0 ] || ms_die "$MS_EX_ENV" "--per-node: no NUMA node with CPUs under $(ms_sysfs /devices/system/node)"
    ms_lock_take
    ms_enforce_recover     # a killed --enforce run's knobs go back first
    ms_check_idle_ok "$(ms_bench_need_bytes "$MS_CK_BENCH" "$MS_CK_SIZE")" || return "$MS_V_EXIT"
    local bind prefix attempt rc out
    for bind in "${binds[@]}"; do
        prefix=""
        [ "$per_node" = 1 ] && prefix="node${bind#node:}: "
        for ((attempt = 1; attempt <= retries + 1; attempt++)); do
            out=$(ms_mktemp)
            rc=0
            MS_V_ATTEMPTS=$((MS_V_ATTEMPTS + 1))
            ms_check_once "$bind" "$out" || rc=$?
            if [ "$rc" -eq "$MS_EX_USAGE" ]; then   # the tool refused the run block (e.g. under 4x LLC)
                ms_check_error "$MS_EX_USAGE" "${prefix}the benchmark refused the reference's run (exit $rc): $MS_CHECK_LOG_TAIL"
                return
            fi
            if [ "$rc" -ge 2 ]; then
                ms_check_error "$MS_EX_ENV" "${prefix}the benchmark could not run (exit $rc): $MS_CHECK_LOG_TAIL"
                return
            fi
            local jrc=0
            if [ "$rc" -eq 0 ]; then
                ms_check_judge "$ref" "$out" "$prefix" || jrc=$?
            else
                ms_check_judge "$ref" --failed "$prefix" "benchmark failed (exit $rc)" "$MS_CHECK_LOG_TAIL" || jrc=$?
            fi
            [ "$jrc" -ne 2 ] || return "$MS_V_EXIT"
            [ "$jrc" -ne 0 ] || break
            if [ "$attempt" -le "$retries" ]; then
                ms_note "${prefix}attempt $attempt/$((retries + 1)) failed ($(cut -f 2 <<<"$MS_CHECK_COUNTS") metric(s) out of tolerance); retrying"
            fi
        done
        MS_V_EVALS+=("$MS_CHECK_EVAL")     # the last attempt counts
    done
    MS_V_LABEL="$(ms_bench_label "$MS_CK_BENCH" "$MS_CK_SCEN") $(ms_human_bytes "$MS_CK_SIZE") x$MS_CK_THREADS"
    [ "$per_node" = 1 ] && MS_V_LABEL+=", ${#binds[@]} node(s)"
    MS_V_AFTER=$((retries + 1))
}

ms_check_record() {
    local ref="$1" runs="$2" floor="$3" cap="$4" upper="$5" per_node="$6" bench="$7" size="$8" threads="$9" reps="${10}" bind="${11}"
    shift 11
    local -a files=("$@")
    local runjson why rundir=""
    # Before anything is measured: a device, a link to one, a directory
    # or an unwritable place is refused (outfile.sh).
    ms_out_check "$ref" || ms_die "$MS_OUT_STATUS" "cannot write the reference $MS_OUT_ERR"
    if [ "${#files[@]}" -gt 0 ]; then
        [ "$per_node" = 1 ] && ms_usage_error "--per-node runs the benchmark; it does not go with --result"
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
        # A reference recorded on a busy node would bless its noise.
        if ! ms_check_idle_ok "$(ms_bench_need_bytes "$MS_CK_BENCH" "$MS_CK_SIZE")"; then
            ms_die "$MS_EX_BUSY" "${MS_V_REASON}; nothing recorded"
        fi
        [ -z "$MS_V_NOTES" ] || ms_note "$MS_V_NOTES"
        local i b out rc
        # named for the messages: "run 2 of 5 (spread)" (rundir stripped)
        rundir=$(ms_mktemp -d)
        for ((i = 1; i <= runs; i++)); do
            for b in "${binds[@]}"; do
                out="$rundir/run $i of $runs ($b)"
                rc=0
                ms_check_once "$b" "$out" || rc=$?
                [ "$rc" -eq 0 ] || ms_die "$MS_EX_ENV" "run $i/$runs ($b) failed (exit $rc): $(ms_printable <<<"$MS_CHECK_LOG_TAIL"); nothing recorded"
                files+=("$out")
            done
            ms_note "recorded run $i/$runs"
        done
    fi
    # The analyser computes the reference (memsuite-analyse record: the
    # inputs' fitness, medians, tolerances, the cap) into a temp file;
    # ms_out_write puts it in place (never over a device, never through a
    # link), exit 3 when it cannot.
    local rc=0 doc sum build
    doc=$(ms_mktemp) sum=$(ms_mktemp) build=$(ms_mktemp)
    ms_check_build "$build"
    local -a a=(--out "$doc" --summary "$sum" --floor "$floor" --cap "$cap" --run "$runjson"
        --memsuite "$MS_VERSION" --host "$(ms_hostname)" --created "$(ms_now_utc)" --build "$build")
    [ -z "$upper" ] || a+=(--upper "$upper")
    why=$(ms_analyse_args record "${a[@]}" -- "${files[@]}") || rc=$?
    [ -z "$rundir" ] || why=${why//"$rundir/"/}
    case "$rc" in
        0) ;;
        1|2) ms_die "$rc" "could not record the reference: $why" ;;
        *) ms_die "$MS_EX_ENV" "could not record the reference: ${why:-the analyser failed}" ;;
    esac
    ms_out_write "$ref" cat -- "$doc" ||
        ms_die "$MS_OUT_STATUS" "could not record the reference: cannot write the reference $MS_OUT_ERR"
    ms_note "wrote $ref from ${#files[@]} result(s)"
    # The summary only beside a file: on a descriptor, device or FIFO it
    # would follow the JSON into the same stream (and cannot be read back).
    [ "$MS_OUT_KIND" = atomic ] || return 0
    ms_out_write - cat -- "$sum" ||
        ms_die "$MS_EX_ENV" "wrote $ref, but cannot print its summary: ${MS_OUT_WHY:-$MS_OUT_ERR}"
}

ms_check_runjson() {
    jq -n --arg b "$(ms_bench_label "$MS_CK_BENCH" "$MS_CK_SCEN")" --argjson s "$MS_CK_SIZE" \
        --argjson t "$MS_CK_THREADS" --argjson r "$MS_CK_REPS" --arg bind "$MS_CK_BIND" \
        '{ bench: $b, size_bytes: $s, threads: $t, reps: $r, bind: $bind }'
}
