# shellcheck shell=bash
# bench: the benchmark descriptor table and the exact command of one cell.
#
# A bench spec is NAME or NAME:SCENARIO (mencal:randread).  Every mencal
# scenario keeps its mencal name: "mencal:sweep" is `mencal run sweep`,
# the memory mountain.  "mencal:randread-sweep" is memsuite's name for
# `mencal run randread --sweep`, the latency curve.  Both sweeps cover
# the sizes themselves: one cell, at the largest size (ms_bench_cells).
# Sizes are bytes per array; threads go through OMP_NUM_THREADS (and
# mbw's --threads).
#
# To adapt to a tool's CLI, change only its ms_argv_<tool> function.
# Extra arguments for a tool (memsuite run --<tool>-args) come from
# passthru.sh and go where each builder puts them.

ms_use passthru

# threaded: yes (its standard figure uses every core: memsuite check's
# default is the physical cores) or opt (threads on request only: its
# standard figure is one thread, check's default).  memsuite run runs
# every --threads count of either.
# name    tool    arrays threaded headline default_reps default_scenario
MS_BENCH_TABLE='
stream    stream  3      yes      Triad    20           -
mbw       mbw     2      opt      MEMCPY   10           -
mencal    mencal  1      yes      *        5            seqread
'

declare -gA MS_BENCH_F=()     # "name,column" -> value, from the table
MS_BENCH_LIST=()
ms_bench_load() {
    local line
    local -a f
    while IFS= read -r line; do
        read -r -a f <<<"$line"
        [ "${#f[@]}" -ge 7 ] || continue
        MS_BENCH_LIST+=("${f[0]}")
        local c
        for c in 1 2 3 4 5 6 7; do MS_BENCH_F["${f[0]},$c"]="${f[$((c - 1))]}"; done
    done <<<"$MS_BENCH_TABLE"
}
ms_bench_load

# ms_bench_field NAME COLUMN(1..7): one column of the table
ms_bench_field() {
    [ -n "${MS_BENCH_F["$1,$2"]+x}" ] || return 1
    printf '%s\n' "${MS_BENCH_F["$1,$2"]}"
}
ms_bench_names() { printf '%s\n' "${MS_BENCH_LIST[@]}"; }
ms_bench_known() { [ -n "${MS_BENCH_F["$1,1"]+x}" ]; }

# ms_bench_split SPEC -> "name<TAB>scenario" (scenario "-" when none);
# prints an error message and returns 1 on a bad spec.
ms_bench_split() {
    local spec="$1" name scen
    # no name is this long; and bash's pattern match below takes seconds
    # per 100 KB (a megabyte run.bench in a reference ran for minutes);
    # the message cuts the value (ms_msg_line)
    if [ "${#spec}" -gt 200 ]; then
        printf "unknown benchmark '%s'; choose from: %s\n" "$spec" "$(ms_bench_names | paste -sd, -)"
        return 1
    fi
    name="${spec%%:*}"
    scen="-"
    [[ "$spec" == *:* ]] && scen="${spec#*:}"
    if ! ms_bench_known "$name"; then
        printf "unknown benchmark '%s'; choose from: %s\n" "$name" "$(ms_bench_names | paste -sd, -)"
        return 1
    fi
    if [ "$scen" = "-" ]; then
        scen=$(ms_bench_field "$name" 7)
    elif [ "$name" != mencal ]; then
        printf "benchmark '%s' has no scenarios (got '%s')\n" "$name" "$spec"
        return 1
    elif ! [[ "$scen" =~ ^[a-z][a-z0-9_-]{0,31}$ ]]; then
        printf "invalid scenario name '%s' in '%s'\n" "$scen" "$spec"
        return 1
    fi
    printf '%s\t%s\n' "$name" "$scen"
}

# ms_bench_list_parse LIST -> one "name<TAB>scenario" line per entry
ms_bench_list_parse() {
    local list="$1" item line
    local -a items out=()
    if ! ms_list_shape_ok "$list"; then
        printf "invalid benchmark list %s; use e.g. stream,mbw,mencal:randread\n" "$(ms_shown "$list")"
        return 1
    fi
    IFS=, read -r -a items <<<"$list"
    for item in "${items[@]}"; do
        line=$(ms_bench_split "$item") || { printf '%s\n' "$line"; return 1; }
        out+=("$line")
    done
    printf '%s\n' "${out[@]}" | awk '!seen[$0]++'
}

# ms_bench_check_scenario BENCH SCENARIO: when the tool can list its
# scenarios (mencal list), an unknown one is refused before the run;
# prints why and returns 1.
ms_bench_check_scenario() {
    local bench="$1" scen="$2" path list
    [ "$bench" = mencal ] && [ "$scen" != randread-sweep ] || return 0
    path=$(ms_tool_path mencal) || return 0
    list=$("$path" list 2>/dev/null | awk '/^[a-z]/ { print $1 }') || return 0
    [ -n "$list" ] || return 0
    if ! grep -qxF -- "$scen" <<<"$list"; then
        printf "mencal has no scenario '%s' (it has: %s, and memsuite's randread-sweep)\n" "$scen" "$(paste -sd, - <<<"$list")"
        return 1
    fi
}

# ms_bench_cells SCENARIO: "matrix" (every size x thread count), or the one
# cell of a sweep: "largest 1" (randread-sweep: one chain) or "largest
# most" (the mountain: its curves at 1 and at the most threads asked).
ms_bench_cells() {
    case "$1" in
        randread-sweep) echo "largest 1" ;;
        sweep) echo "largest most" ;;
        *) echo matrix ;;
    esac
}

ms_bench_reps() {            # ms_bench_reps NAME REPS_OPTION
    if [ -n "$2" ]; then printf '%s\n' "$2"; else ms_bench_field "$1" 6; fi
}

# Memory one cell needs, in bytes: arrays x size.
ms_bench_need_bytes() { printf '%s\n' "$(( $(ms_bench_field "$1" 3) * $2 ))"; }

# The LLC the cells are sized against (bytes; 0 unknown).  Every
# benchmark runs with --strict: a size under 4x the LLC (by the tool's own
# detection) is refused, exit 2, because acceptance runs must not measure
# caches.  The one exception is a cell `memsuite run` sized below 4x LLC
# on purpose (the "1x" row, or an explicit small --sizes entry) while
# MS_CELL_CACHE_OK=1: it runs without --strict and the tool labels its
# result not-standard.  `memsuite check` never sets MS_CELL_CACHE_OK.
MS_CELL_LLC=0
MS_CELL_QUICK=0     # 1 under run --quick: the timed scenarios run short
MS_CELL_CACHE_OK=0
ms_cell_in_cache() { [ "$MS_CELL_LLC" -gt 0 ] && [ "$1" -lt $((4 * MS_CELL_LLC)) ]; }
# ms_cell_strict SIZE_BYTES: whether the cell runs with --strict
ms_cell_strict() { ! { [ "$MS_CELL_CACHE_OK" = 1 ] && ms_cell_in_cache "$1"; }; }

# --- per-tool argument builders: fill MS_ARGV (after the tool path) ---
# ms_argv_<tool> SCENARIO SIZE_BYTES THREADS REPS OUTPUT_FILE
# Every tool writes its JSON result to OUTPUT_FILE (atomically); its
# stdout and stderr go to the cell's log.
ms_argv_stream() {
    # STREAM discards its first pass: NTIMES = samples + 1.  Doubles.
    MS_ARGV=(--format json --output "$5" --array-size "$(( $2 / 8 ))" --ntimes "$(( $4 + 1 ))")
    if ms_cell_strict "$2"; then MS_ARGV+=(--strict); fi
    ms_passthru_words stream
    MS_ARGV+=("${MS_PASSTHRU_WORDS[@]}")
}
ms_argv_mbw() {
    # mbw's size is MiB per array; --strict gives the 0/1/2/3 exit codes
    # and refuses a size under the rule, so a cell in cache on purpose goes
    # without it (mbw's exit codes: any error is 1).
    # The extra arguments go before the size (the one positional).
    # --threads 1 is the classic single-threaded copy.
    local mib=$(( ($2 + 1048575) / 1048576 ))
    ms_passthru_words mbw
    MS_ARGV=(-q -n "$4" --threads "$3" --format json --output "$5" "${MS_PASSTHRU_WORDS[@]}" "$mib")
    if ms_cell_strict "$2"; then MS_ARGV=(--strict "${MS_ARGV[@]}"); fi
}
ms_argv_mencal() {
    case "$1" in
        randread-sweep) MS_ARGV=(run randread --sweep --size "$2" --threads "$3") ;;
        concurrent) MS_ARGV=(run concurrent --size "$2" --procs "$3") ;;
        *) MS_ARGV=(run "$1" --size "$2" --threads "$3") ;;
    esac
    if [ "$MS_CELL_QUICK" = 1 ]; then
        case "$1" in
            concurrent) MS_ARGV+=(--duration 1) ;;
            stability) MS_ARGV+=(--iterations 3 --interval 1) ;;
        esac
    fi
    # stability is one long run (its figures are over its samples): no --reps
    [ "$1" = stability ] || MS_ARGV+=(--reps "$4")
    MS_ARGV+=(--format json --output "$5")
    if ms_cell_strict "$2"; then MS_ARGV+=(--strict); fi
    ms_passthru_words mencal
    MS_ARGV+=("${MS_PASSTHRU_WORDS[@]}")
}

# ms_bench_result_id BENCH SCEN: "tool<TAB>scenario" that a cell's result
# document names (.tool, mencal's .config.scenarios[0]; scenario empty for
# tools without scenarios), as ms_argv_<tool> runs it: memsuite's
# mencal:randread-sweep is mencal's randread --sweep (mencal:sweep is
# mencal's own sweep, the mountain).
ms_bench_result_id() {
    local tool scen=""
    tool=$(ms_bench_field "$1" 2) || tool="$1"
    if [ "$tool" = mencal ]; then
        scen="$2"
        [ "$scen" != randread-sweep ] || scen=randread
    fi
    printf '%s\t%s\n' "$tool" "$scen"
}

# ms_bind_check MODE NODES...: prints an error and returns 1 when invalid
ms_bind_check() {
    local mode="$1"
    shift
    case "$mode" in
        none|close|spread) return 0 ;;
        node:*)
            local n="${mode#node:}" x
            if ! [[ "$n" =~ ^[0-9]+$ ]]; then
                printf "invalid --bind '%s'; use none, close, spread or node:N\n" "$mode"
                return 1
            fi
            for x in "$@"; do [ "$x" = "$n" ] && return 0; done
            printf "NUMA node %s does not exist (nodes with CPUs: %s)\n" "$n" "$(printf '%s\n' "$@" | paste -sd, -)"
            return 1 ;;
        *)
            printf "invalid --bind '%s'; use none, close, spread or node:N\n" "$mode"
            return 1 ;;
    esac
}

# ms_cell_command BENCH SCEN SIZE THREADS REPS BIND TUNABLES OUTPUT: fills
# MS_CMDV with the exact command (env VAR=... [numactl ...] tool args).
# The tool path must already be checked (ms_tool_require).
ms_cell_command() {
    local bench="$1" scen="$2" size="$3" threads="$4" reps="$5" bind="$6" tunables="$7" outfile="$8"
    local tool path
    tool=$(ms_bench_field "$bench" 2)
    path=$(ms_tool_path "$tool") || path="$tool"
    "ms_argv_$tool" "$scen" "$size" "$threads" "$reps" "$outfile"
    MS_CMDV=(env "OMP_NUM_THREADS=$threads")
    case "$bind" in
        close|spread) MS_CMDV+=("OMP_PLACES=cores" "OMP_PROC_BIND=$bind") ;;
        node:*) MS_CMDV+=("OMP_PLACES=cores" "OMP_PROC_BIND=close") ;;
    esac
    [ -n "$tunables" ] && MS_CMDV+=("GLIBC_TUNABLES=$tunables")
    case "$bind" in
        node:*) MS_CMDV+=(numactl "--cpunodebind=${bind#node:}" "--membind=${bind#node:}") ;;
    esac
    MS_CMDV+=("$path" "${MS_ARGV[@]}")
}

# ms_cell_plan BENCH SCEN SIZE THREADS REPS: the tool's plan document for
# the cell (its --plan --format json, the cell's own arguments, no
# binding) on stdout; the tool decides the 4x LLC rule and the memory fit
# itself, nothing is allocated.  Returns the tool's exit code (what the
# run would exit with); 4 with nothing printed when the tool is not found.
# The tool's stderr goes to the file MS_PLAN_ERR names (default: dropped).
ms_cell_plan() {
    ms_tool_path "$(ms_bench_field "$1" 2)" >/dev/null || return 4
    ms_cell_command "$1" "$2" "$3" "$4" "$5" none "" /dev/null
    "${MS_CMDV[@]}" --plan --format json 2>"${MS_PLAN_ERR:-/dev/null}"
}

# ms_cell_memory_refusal BENCH SCEN SIZE THREADS REPS: 1 with the tool's
# message on stdout when the tool would refuse the cell for memory
# (refusal.check "memory"); 0 otherwise, also when the tool gives no plan
# (the run then reports what it finds).
ms_cell_memory_refusal() {
    local doc rc=0
    doc=$(ms_cell_plan "$@") || rc=$?
    [ "$rc" -ne 0 ] || return 0
    [ "$(jq -r '.refusal.check? // empty' <<<"$doc" 2>/dev/null)" = memory ] || return 0
    jq -r '.refusal.message' <<<"$doc"
    return 1
}

# ms_cell_plan_line BENCH SCEN SIZE THREADS REPS: one line of the tool's
# verdict on the cell, "tool plan: runs, label L[ (size rule: V)]" or
# "tool plan: refused (exit N) by CHECK: MESSAGE", or "tool plan: refused
# (exit N): its message" when it refuses before planning (an option it
# does not know), and returns 1; nothing when the tool is not found.
ms_cell_plan_line() {
    local doc tool go label rule code check why rc=0
    local MS_PLAN_ERR
    MS_PLAN_ERR=$(ms_mktemp)
    doc=$(ms_cell_plan "$@") || rc=$?
    if [ -z "$doc" ]; then
        [ "$rc" != 0 ] && [ "$rc" != 4 ] || return 0
        printf '%s plan: refused (exit %s): %s\n' "$(ms_bench_field "$1" 2)" "$rc" \
            "$(grep -m 1 . "$MS_PLAN_ERR" | cut -c 1-300 | ms_printable)"
        return 1
    fi
    # one line, fields apart by US (empty fields stay fields; tools escape control bytes)
    IFS=$'\037' read -r tool go label rule code check why < <(jq -r '[.tool, .proceed, .label,
        .size_rule.verdict, .exit_code, .refusal.check, .refusal.message] | map(. // "" | tostring) | join("\u001f")' \
        <<<"$doc" 2>/dev/null) || return 0
    if [ "$go" != true ]; then
        printf '%s plan: refused (exit %s) by %s: %s\n' "$tool" "$code" "$check" "$why"
        return 1
    elif [ -z "$rule" ] || [ "$rule" = met ]; then
        printf '%s plan: runs, label %s\n' "$tool" "$label"
    else
        printf '%s plan: runs, label %s (size rule: %s)\n' "$tool" "$label" "$rule"
    fi
}

# "stream" or "mencal:randread"
ms_bench_label() { if [ "$2" = "-" ]; then printf '%s\n' "$1"; else printf '%s:%s\n' "$1" "$2"; fi; }

# Cell id: bench[-scenario]-s<bytes>-t<threads>
ms_cell_id() {
    local scen=""
    [ "$2" != "-" ] && scen="-$2"
    printf '%s%s-s%s-t%s\n' "$1" "$scen" "$3" "$4"
}
