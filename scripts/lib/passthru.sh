# shellcheck shell=bash
# passthru: extra arguments `memsuite run` hands to a tool (--stream-args,
# --mbw-args, --mencal-args), so tuned matrices (--hugepages madvise,
# --nt-stores) run under the same plan, records and report.
#
# Contract:
#   - the value is split at blanks (spaces, tabs); quotes and backslashes
#     are refused, not interpreted, so what is recorded is what runs;
#   - options memsuite sets itself for every cell (size, repetitions,
#     threads, binding, output, format, --strict, help) are refused with
#     the memsuite option to use instead; long names are refused by
#     prefix too (the tools' getopt_long accepts abbreviations), short
#     ones inside a cluster too (-qn5 is -q -n 5);
#   - a word that is not an option must follow an option (its value);
#   - ms_passthru_validate then asks the tool for its plan of a tiny
#     cell with the arguments (--plan: parsed and checked by the tool
#     itself, nothing measured), so an argument the tool refuses is
#     found before the matrix starts.
# The arguments go after memsuite's own (mbw: before the size) through
# the ms_argv_<tool> builders (bench.sh), are stored in run.json as
# config.tool_args {tool: [words]}, and each cell's result document
# records them in its "command" (and "label": tuned, when they tune).

declare -gA MS_TOOL_ARGS=()    # tool -> its extra words, joined by one space

# Options memsuite sets for every cell, per tool: "names<TAB>instead".
# Names are separated by spaces; a short one is refused anywhere in the
# leading letters of a cluster (-qn5), so also with an attached value.
MS_PASSTHRU_DENY='
stream	-s --array-size	--sizes
stream	-n --ntimes	--reps
stream	-t --threads	--threads
stream	--cpunodebind --membind	--bind node:N
stream	--format -O --output	--out (memsuite keeps the JSON of every cell)
stream	--strict --llc	--sizes (memsuite applies the 4x LLC rule; MEMSUITE_LLC overrides the LLC)
stream	-h --help -V --version	nothing (it would print and measure nothing)
stream	--plan	memsuite run --dry-run (every cell shows the plan of its tool)
mbw	-n	--reps
mbw	--threads	--threads (each count is a cell)
mbw	--numa-node	--bind node:N
mbw	--format --output	--out (memsuite keeps the JSON of every cell)
mbw	--strict	--sizes (memsuite applies the 4x LLC rule)
mbw	-h --help --version	nothing (it would print and measure nothing)
mbw	--plan	memsuite run --dry-run (every cell shows the plan of its tool)
mencal	-s --size	--sizes
mencal	-t --threads -p --procs	--threads
mencal	-r --reps	--reps
mencal	--cpunodebind --membind	--bind node:N
mencal	-f --format -O --output	--out (memsuite keeps the JSON of every cell)
mencal	--strict --llc	--sizes (memsuite applies the 4x LLC rule; MEMSUITE_LLC overrides the LLC)
mencal	--sweep	--bench mencal:randread-sweep
mencal	--dry-run --plan	memsuite run --dry-run (every cell shows the plan of its tool)
mencal	-h --help -V --version	nothing (it would print and measure nothing)
'

# ms_passthru_denied TOOL WORD: prints the memsuite option to use instead
# when WORD is one memsuite sets; returns 1 when WORD may pass.
ms_passthru_denied() {
    local tool="$1" word="$2" t names instead n
    [[ "$word" == -* ]] || return 1
    while IFS=$'\t' read -r t names instead; do
        [ "$t" = "$tool" ] || continue
        for n in $names; do
            if [[ "$n" == --* ]]; then
                # --name, --name=value, or an abbreviation --na
                local w="${word%%=*}"
                [[ "$w" == --?* && "$n" == "$w"* ]] || continue
            elif [[ "$word" == --* ]]; then
                continue
            else
                # the letters of a cluster up to the first non-letter
                local letters="${word#-}"
                letters="${letters%%[!A-Za-z]*}"
                [[ "$letters" == *"${n#-}"* ]] || continue
            fi
            printf '%s\n' "$instead"
            return 0
        done
    done <<<"$MS_PASSTHRU_DENY"
    return 1
}

# ms_passthru_set TOOL VALUE: checks VALUE (dies 2 naming the bad word)
# and stores it for TOOL.  TOOL is a tool of the bench table.
ms_passthru_set() {
    local tool="$1" value="$2" opt="--$1-args" w prev="" instead
    local -a words
    case "$value" in
        *[\"\'\\]*) ms_usage_error "$opt: quotes and backslashes are not interpreted; give the words separated by spaces, e.g. $opt \"--hugepages madvise\"" ;;
        *[![:print:][:blank:]]*) ms_usage_error "$opt: $(ms_shown "$value") holds a control character; give printable words separated by spaces" ;;
    esac
    read -r -a words <<<"$value"
    [ "${#words[@]}" -gt 0 ] || ms_usage_error "$opt: no arguments in $(ms_shown "$value"); give e.g. $opt \"--hugepages madvise\""
    for w in "${words[@]}"; do
        if instead=$(ms_passthru_denied "$tool" "$w"); then
            ms_usage_error "$opt: $w is set by memsuite run for every cell; use $instead"
        fi
        if [[ "$w" != -* ]] && { [ -z "$prev" ] || [[ "$prev" != -* ]] || [[ "$prev" == *=* ]]; }; then
            ms_usage_error "$opt: '$w' is not an option nor an option's value; $tool's options start with '-' (see '$tool --help')"
        fi
        prev="$w"
    done
    MS_TOOL_ARGS[$tool]="${words[*]}"
}

# ms_passthru_words TOOL: fills MS_PASSTHRU_WORDS with TOOL's extra words
# (empty when none).
ms_passthru_words() {
    MS_PASSTHRU_WORDS=()
    [ -n "${MS_TOOL_ARGS[$1]:-}" ] || return 0
    read -r -a MS_PASSTHRU_WORDS <<<"${MS_TOOL_ARGS[$1]}"
}

# ms_passthru_json: config.tool_args, {"stream": ["--nt-stores"], ...}
# ({} when none).
ms_passthru_json() {
    local tool json="{}" words
    for tool in "${!MS_TOOL_ARGS[@]}"; do
        ms_passthru_words "$tool"
        words=$(ms_json_array "${MS_PASSTHRU_WORDS[@]}")
        json=$(jq -c --arg t "$tool" --argjson w "$words" '. + {($t): $w}' <<<"$json")
    done
    jq -c -S . <<<"$json"
}

# ms_passthru_load_json JSON: MS_TOOL_ARGS from a stored config.tool_args
# (resume); words that do not pass ms_passthru_set now are refused the
# same way (the directory may have been edited).
ms_passthru_load_json() {
    local tool value
    while IFS=$'\t' read -r tool value; do
        [ -n "$tool" ] || continue
        ms_bench_known "$tool" || ms_usage_error "run.json: config.tool_args names an unknown tool $(ms_shown "$tool")"
        ms_passthru_set "$tool" "$value"
    done < <(jq -r 'to_entries[]? | select(.value | type == "array") | [.key, (.value | map(tostring) | join(" "))] | @tsv' <<<"$1")
}

# ms_passthru_check_benches BENCH_LINES...: every tool given extra
# arguments is in the matrix (else a usage error: they would do nothing).
ms_passthru_check_benches() {
    local tool line ok
    for tool in "${!MS_TOOL_ARGS[@]}"; do
        ok=0
        for line in "$@"; do [ "$(ms_bench_field "${line%%$'\t'*}" 2)" = "$tool" ] && ok=1; done
        [ "$ok" = 1 ] || ms_usage_error "--$tool-args given, but $tool is not in the matrix; add it to --bench or drop the option"
    done
}

# ms_passthru_validate PLAN: for each bench:scenario of PLAN whose tool has
# extra arguments, ask the tool for its plan of a tiny cell with them
# (--plan --format json: 1 MiB, one thread, one repetition,
# MEMSUITE_LLC=64K so --strict keeps the tool's strict parsing; every
# check the run makes before allocating, nothing measured).  A refusal
# dies 2 with the tool's own message (its stderr; mbw's compatible
# errors are on stdout).  Tools must be present (ms_tool_require).
ms_passthru_validate() {
    local plan="$1" _ bench scen tool out doc log rc msg
    local -A seen=()
    [ "${#MS_TOOL_ARGS[@]}" -gt 0 ] || return 0
    while IFS=$'\t' read -r _ bench scen _; do
        tool=$(ms_bench_field "$bench" 2)
        [ -n "${MS_TOOL_ARGS[$tool]:-}" ] || continue
        [ -z "${seen[$bench:$scen]:-}" ] || continue
        seen[$bench:$scen]=1
        out=$(ms_mktemp -d)/probe.json     # named in the command, never written
        doc=$(ms_mktemp)
        log=$(ms_mktemp)
        (
            MS_CELL_LLC=0      # strict: the tiny size passes MEMSUITE_LLC=64K
            MS_CELL_QUICK=1
            ms_cell_command "$bench" "$scen" $((1024 * 1024)) 1 1 none "" "$out"
            exec env MEMSUITE_LLC=64K "${MS_CMDV[@]:1}" --plan --format json
        ) </dev/null >"$doc" 2>"$log" && rc=0 || rc=$?
        if [ "$rc" -ne 0 ]; then
            msg=$(grep -v '^[[:space:]]*$' "$log" | tail -n 2 | paste -sd ' ' - | ms_printable) || msg=""
            if [ -z "$msg" ] && ! jq -e .schema "$doc" >/dev/null 2>&1; then
                msg=$(grep -v '^[[:space:]]*$' "$doc" | tail -n 2 | paste -sd ' ' - | ms_printable) || msg=""
            fi
            ms_usage_error "--$tool-args: $(ms_bench_label "$bench" "$scen") refuses '${MS_TOOL_ARGS[$tool]}' (its --plan of a 1 MiB cell exited $rc): ${msg:-no message}"
        fi
    done <"$plan"
}

# ms_passthru_summary: "stream: --nt-stores; mbw: ..." (empty when none)
ms_passthru_summary() {
    local tool out=""
    for tool in $(printf '%s\n' "${!MS_TOOL_ARGS[@]}" | sort); do
        out+="${out:+; }$tool: ${MS_TOOL_ARGS[$tool]}"
    done
    printf '%s\n' "$out"
}
