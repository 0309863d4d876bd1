# shellcheck shell=bash
# compare: two results directories side by side (the before/after
# table): environment and run differences first, then metric by metric
# with the % change and a marker where the change exceeds the noise.
#
# Noise of a row: max(2 x sqrt(cvA^2 + cvB^2), MIN_NOISE), in %.  The
# first term is both runs' coefficients of variation over their
# repetitions: the noise within a run.  It misses the noise between runs
# (a run lands in a better or worse phase of the machine: page placement,
# frequency, neighbours), which repetitions inside one run do not sample:
# two runs of the same configuration on a 2-vCPU VM differ by up to
# ~8% with within-run CVs of 1-2% (docs/node-validation.md).  MIN_NOISE
# (--min-noise, default 10%) is that run-to-run floor.
# "*" marks |change| above the noise; "?" marks rows where a CV is
# unknown (a single repetition): not judged.
#
# A change beyond the noise is a regression when it goes the bad way:
# lower for rates, higher for times (units s, ms, us, ns).  The last line
# is the verdict ("none" when a side has no valid cell).  ms_compare_dirs
# returns 1 for invalid or missing cell files, and for a regression or a
# side with no valid cell when MS_COMPARE_EXIT_ON_REGRESSION=1 (memsuite
# compare sets it; run --baseline's compare.txt is a report, not a
# verdict).
MS_COMPARE_EXIT_ON_REGRESSION=0
MS_COMPARE_MIN_NOISE=10     # % (the default of --min-noise)

ms_use rundir

# ms_compare_env A B: "key<TAB>valueA<TAB>valueB" for every differing fact
ms_compare_env() {
    local a="$1/env.json" b="$2/env.json"
    if [ ! -f "$a" ] || [ ! -f "$b" ]; then
        printf 'env.json\t%s\t%s\n' "$([ -f "$a" ] && echo present || echo missing)" "$([ -f "$b" ] && echo present || echo missing)"
        return 0
    fi
    jq -r -n --slurpfile A "$a" --slurpfile B "$b" '
        # values as text: an object or array cannot be a TSV field, and
        # jq failing here would read as "no difference"
        def facts($d): $d[0].facts // [] | map({ key: (.key | tostring), value: (if .verdict == "unavailable" then "unavailable" else .value end | tostring) }) | from_entries;
        facts($A) as $fa | facts($B) as $fb
        | (($fa | keys_unsorted) + ($fb | keys_unsorted) | unique) as $keys
        | ($fa | keys_unsorted) as $order
        | ($order + ($keys - $order))[]
        | select($fa[.] != $fb[.])
        | [., ($fa[.] // "absent"), ($fb[.] // "absent")] | @tsv'
}

# ms_compare_config A B: differing run settings
ms_compare_config() {
    jq -r -n --slurpfile A "$1/run.json" --slurpfile B "$2/run.json" '
        ($A[0].config // {}) as $a | ($B[0].config // {}) as $b
        | ["benches", "sizes_bytes", "threads", "bind", "reps", "quick", "glibc_tunables", "profile", "enforce", "llc_bytes", "tool_args"][]
        | select($a[.] != $b[.])
        | [., ($a[.] | tostring), ($b[.] | tostring)] | @tsv'
}

# ms_compare_dirs A B ALL(0|1) MARKDOWN(0|1) [MIN_NOISE_PCT]
ms_compare_dirs() {
    local a="$1" b="$2" all="$3" md="$4" minnoise="${5:-$MS_COMPARE_MIN_NOISE}" k va vb n=0
    # ms_rundir_check refuses a corrupt run.json, plan.tsv or env.json
    # (exit 2): "Environment differences: none" from a broken file would lie.
    ms_rundir_check "$a"
    ms_rundir_check "$b"
    local auda audb invalid
    auda=$(ms_mktemp)
    audb=$(ms_mktemp)
    ms_rundir_audit "$a" >"$auda"
    ms_rundir_audit "$b" >"$audb"
    invalid=$(ms_rundir_audit_problems "$a" "$auda"; ms_rundir_audit_problems "$b" "$audb")
    # A side without one valid cell has nothing to compare: no verdict.
    local empty=""
    grep -q $'\tvalid\t' "$auda" || empty="A ($a)"
    grep -q $'\tvalid\t' "$audb" || empty="${empty:+$empty and }B ($b)"
    local csva csvb
    csva=$(ms_mktemp)
    csvb=$(ms_mktemp)
    ms_rundir_summary "$a" "$csva"
    ms_rundir_summary "$b" "$csvb"
    local ha hb
    ha="$(ms_run_json_get "$a" '"\(.host // "?"), \(.created // "?")\(if .complete then "" else ", INCOMPLETE" end)" | gsub("[\t\n\r]"; " ")')"
    hb="$(ms_run_json_get "$b" '"\(.host // "?"), \(.created // "?")\(if .complete then "" else ", INCOMPLETE" end)" | gsub("[\t\n\r]"; " ")')"
    if [ "$md" = 1 ]; then
        printf '# memsuite compare\n\n- A: `%s` (%s)\n- B: `%s` (%s)\n' "$a" "$ha" "$b" "$hb"
        [ -n "$invalid" ] && printf -- '- %s\n' "${invalid//$'\n'/$'\n'- }"
        printf '\n## Environment differences\n\n'
    else
        printf 'memsuite compare\n  A: %s (%s)\n  B: %s (%s)\n' "$a" "$ha" "$b" "$hb"
        [ -n "$invalid" ] && printf '  %s\n' "${invalid//$'\n'/$'\n'  }"
        printf '\nEnvironment differences (A -> B):\n'
    fi
    while IFS=$'\t' read -r k va vb; do
        n=$((n + 1))
        if [ "$md" = 1 ]; then printf -- '- %s: `%s` -> `%s`\n' "$k" "$va" "$vb"
        else printf '  %-22s %s -> %s\n' "$k" "$va" "$vb"; fi
    done < <(ms_compare_env "$a" "$b"; ms_use compare-paging; ms_compare_tool_env "$a" "$b"
             ms_compare_config "$a" "$b" | sed 's/^/run./')
    if [ "$n" = 0 ]; then
        if [ "$md" = 1 ]; then echo "- none"; else echo "  none"; fi
    fi
    echo
    ms_use compare-paging
    ms_compare_paging "$a" "$b" "$md"
    ms_use compare-counters
    ms_compare_counters "$a" "$b" "$md"
    local verdict
    verdict=$(ms_mktemp)
    MS_EMPTY="$empty" awk -F, -v all="$all" -v md="$md" -v minnoise="$minnoise" -v verdict="$verdict" '
        BEGIN { empty = ENVIRON["MS_EMPTY"] }   # names, not awk escapes
        function key() { return $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP $7 SUBSEP $8 }
        function human(b,   u, i) {
            split("B KiB MiB GiB TiB", u, " "); i = 1
            while (b >= 1024 && i < 5) { b /= 1024; i++ }
            return (i == 1 ? sprintf("%d B", b) : sprintf("%.1f %s", b, u[i]))
        }
        FNR == 1 { file++; next }
        !all && $14 != 1 { next }
        file == 1 { k = key(); if (!(k in A)) order[++n] = k; A[k] = $10; cA[k] = $12; row[k] = $0; unit[k] = $9; next }
        file == 2 { k = key(); if (!(k in A) && !(k in B)) order[++n] = k; B[k] = $10; cB[k] = $12; if (!(k in row)) row[k] = $0; unit[k] = $9 }
        END {
            if (md) {
                print "## Results\n"
                print "| bench | size | threads | record | metric | A | B | change | noise | |"
                print "|---|---:|---:|---|---|---:|---:|---:|---:|---|"
            } else {
                printf "%-16s %10s %7s %-10s %-16s %12s %12s %8s %7s\n", "bench", "size", "threads", "record", "metric", "A", "B", "change", "noise"
            }
            marked = 0
            for (i = 1; i <= n; i++) {
                k = order[i]; split(row[k], f, ",")
                bench = f[2] (f[3] == "-" ? "" : ":" f[3])
                a = (k in A) ? A[k] : "-"; b = (k in B) ? B[k] : "-"
                ch = "-"; noise = "-"; mark = ""
                if (a != "-" && b != "-" && a != "NA" && b != "NA" && a + 0 != 0) {
                    ch = sprintf("%+.1f%%", (b - a) / a * 100)
                    if (cA[k] != "" && cB[k] != "") {
                        nz = 2 * sqrt(cA[k] * cA[k] + cB[k] * cB[k]) * 100
                        if (nz < minnoise) nz = minnoise
                        noise = sprintf("%.1f%%", nz)
                        pct = (b - a) / a * 100
                        if (pct > nz || -pct > nz) {
                            mark = "*"; marked++
                            # worse: lower rates, higher times
                            worse = (unit[k] ~ /^(s|ms|us|ns)$/) ? (pct > 0) : (pct < 0)
                            if (worse) {
                                worsen++
                                if (worst == "" || (pct < 0 ? -pct : pct) > worstabs) {
                                    worstabs = (pct < 0 ? -pct : pct)
                                    worst = sprintf("%s %s x%s %s.%s %+.1f%% (noise %.1f%%)", bench, human(f[4]), f[5], f[7], f[8], pct, nz)
                                }
                            } else better++
                        }
                    } else { mark = "?"; unknown++ }
                } else if (a == "-" || b == "-") { mark = "only " (a == "-" ? "B" : "A"); onlyone++ }
                else if (a == "NA" || b == "NA") { mark = "NA"; na++ }
                if (a != "-" && a != "NA") a = sprintf("%.1f", a)
                if (b != "-" && b != "NA") b = sprintf("%.1f", b)
                if (md) printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", bench, human(f[4]), f[5], f[7], f[8], a, b, ch, noise, mark
                else printf "%-16s %10s %7s %-10s %-16s %12s %12s %8s %7s %s\n", bench, human(f[4]), f[5], f[7], f[8], a, b, ch, noise, mark
            }
            print ""
            # "0 changes" must not read as "no difference" when the noise
            # could not be judged or a row has only one side.
            printf "%d row(s); %d change(s) beyond the noise (*: |change| > max(2 x sqrt(cvA^2 + cvB^2), %g%%))", n, marked, minnoise
            if (unknown) printf "; %d row(s) not judged: CV unknown (?: a single repetition)", unknown
            if (onlyone) printf "; %d row(s) in one run only", onlyone
            if (na) printf "; %d row(s) unavailable (NA)", na
            printf "\n"
            judged = n - unknown - onlyone - na
            if (empty != "") v = sprintf("none: no valid cell in %s, nothing to compare", empty)
            else if (worsen) v = sprintf("REGRESSION: %d row(s) worse beyond the noise; worst %s", worsen, worst)
            else if (better) v = sprintf("improvement: %d row(s) better beyond the noise, none worse", better)
            else v = sprintf("no change beyond the noise in %d judged row(s)", judged)
            if (empty == "" && judged < n) v = v sprintf(" (%d of %d row(s) not judged)", n - judged, n)
            printf "%sverdict: %s\n", (md ? "\n**" : ""), v (md ? "**" : "")
            print ((worsen || empty != "") ? 1 : 0) > verdict
        }' "$csva" "$csvb"
    [ -z "$empty" ] || ms_error "no valid cell in $empty: nothing to compare"
    if [ -n "$invalid" ]; then
        local ni nm
        ni=$(grep -c '^invalid: ' <<<"$invalid" || true) nm=$(grep -c '^missing: ' <<<"$invalid" || true)
        [ "$ni" = 0 ] || ms_error "$ni invalid cell file(s) (listed at the top); their rows are left out"
        [ "$nm" = 0 ] || ms_error "$nm cell file(s) missing from a complete run (listed at the top); their rows are absent"
        return 1
    fi
    [ "$MS_COMPARE_EXIT_ON_REGRESSION" = 1 ] || return 0
    [ "$(cat "$verdict")" = 0 ]
}
