# Summary: tables, health checks and plots for a results directory
# Usage: memsuite report [--markdown] [--plots] [--tolerance PCT] [--efficiency PCT]
#                        [--cv-max PCT] [--peak-min PCT] DIR
#        memsuite report --html [--output FILE] [threshold options] DIR
#
# One table per benchmark: a row per size and thread count, a column per
# kernel (its headline metric, e.g. stream's Best Rate MB/s), flags for
# in-cache rows (array < 4 x LLC), noisy rows and tuned rows (the
# cell's result is labelled tuned: memsuite run --<tool>-args).  Then the health checks,
# each "pass", "warn" or "skip" with its numbers:
#   kernel-order   Triad ~ Add >= Copy ~ Scale within --tolerance (10%)
#   scaling        thread-scaling efficiency per step >= --efficiency (70%)
#   peak           best bandwidth >= --peak-min (50%) of the theoretical
#                  peak from env.json (DIMM channels x MT/s x 8 bytes)
#   in-cache       sizes below 4 x LLC
#   noise          CV over the repetitions above --cv-max (5%)
#   method-order   mbw: MEMCPY >= DUMB and MCBLOCK ~ MEMCPY within
#                  --tolerance; otherwise "unusual method order" (warn)
#   throttle       per cell (memsuite run watches each): CPU frequency
#                  falling more than MEMSUITE_THROTTLE_PCT (10%) below its
#                  first sample, or a thermal-throttle count rising (warn,
#                  naming the cell and the sample); skip when unavailable
#
#   --markdown   Markdown tables instead of plain text
#   --plots      also write gnuplot PNGs to DIR/plots/: per benchmark,
#                the headline metric vs threads (a line per size) and vs
#                size (a line per thread count), a panel per kernel, in
#                the tables' units, error bars +-1 CV, in-cache points
#                ringed; and the latency curve of mencal:randread-sweep cells
#   --html       write one self-contained HTML file instead (no script,
#                no network; plots embedded): the run, the environment
#                (every setting and fact that shapes the figures), the
#                health checks, the tables and the plots; prints its path
#   --output FILE  with --html: where (default DIR/report.html; - for
#                stdout), written atomically; the "html: FILE" line is
#                left out when FILE is standard output itself
# Exit 0 once the report is printed (a "warn" does not fail it); 1 when a
# cell file is invalid (empty, truncated, not a regular file, not a
# result, another tool's or scenario's result, failed validation, a value
# that is no measurement or not of its type: each is named at the top as
# "invalid: FILE: why"), missing from a complete run ("missing: FILE"),
# or no cell is valid; 2 usage or not a results directory (or a damaged
# one); 3 a file cannot be read.

ms_use lists rundir health throttle

# Everything printed passes through ms_printable: record names, hosts and
# file names come from files anyone with access to DIR may have written.
cmd_report() {
    ms_report_main "$@" | ms_printable
}

ms_report_main() {
    local md=0 plots=0 html=0 out="" tol=10 eff=70 cvmax=5 peakmin=50 v
    local -a dirs=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --markdown|--md) md=1 ;;
            --plots) plots=1 ;;
            --html) html=1 ;;
            --output|-o) ms_need_arg "$@"; out="$2"; shift ;;
            --tolerance) ms_need_arg "$@"; tol=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$tol"; shift ;;
            --efficiency) ms_need_arg "$@"; eff=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$eff"; shift ;;
            --cv-max) ms_need_arg "$@"; cvmax=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$cvmax"; shift ;;
            --peak-min) ms_need_arg "$@"; peakmin=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$peakmin"; shift ;;
            -h|--help) ms_cmd_help ;;
            --) shift; dirs+=("$@"); break ;;
            -*) ms_unknown_option "$1" ;;
            *) dirs+=("$1") ;;
        esac
        shift
    done
    [ "${#dirs[@]}" -eq 1 ] || ms_usage_error "needs one results directory (got ${#dirs[@]}); see 'memsuite help report'"
    local d="${dirs[0]}"
    [ "$html" = 1 ] && [ "$md" = 1 ] && ms_usage_error "--html and --markdown do not go together; choose one"
    [ -n "$out" ] && [ "$html" = 0 ] && ms_usage_error "--output needs --html (the text and Markdown reports go to stdout)"
    ms_rundir_check "$d"
    local csv audit
    csv=$(ms_mktemp)
    audit=$(ms_mktemp)
    ms_rundir_audit "$d" >"$audit"
    ms_rundir_summary "$d" "$csv"

    local llc peak peaknote
    llc=$(jq -r '.config.llc_bytes // 0' "$d/run.json")
    peak="" peaknote="no env.json"
    if [ -f "$d/env.json" ]; then
        peak=$(jq -r '.peak_mbps // empty' "$d/env.json")
        peaknote=$(jq -r '.peak_note // "unknown"' "$d/env.json")
        [ "$llc" = 0 ] && llc=$(jq -r '.llc_bytes // 0' "$d/env.json")
    fi

    local health labels
    health=$(ms_mktemp)
    labels=$(ms_mktemp)
    ms_report_labels "$d" "$audit" >"$labels"
    { ms_health "$csv" "$llc" "$peak" "$peaknote" "$tol" "$eff" "$cvmax" "$peakmin"
      ms_throttle_health "$d"; } >"$health"
    if [ "$html" = 1 ]; then
        ms_use report-html
        [ -n "$out" ] || out="$d/report.html"
        ms_out_check "$out" || ms_die "$MS_EX_ENV" "cannot write the HTML report: $MS_OUT_ERR; choose another --output"
        ms_out_write "$out" ms_report_html "$d" "$csv" "$audit" "$health" "$llc" "$peak" "$peaknote" "$cvmax" "$labels" ||
            ms_die "$MS_EX_ENV" "cannot write the HTML report ${MS_OUT_ERR:-$out (rendering it failed)}"
        # The path line only where it cannot land inside the document.
        ms_report_is_stdout "$out" || printf 'html: %s\n' "$out"
        ms_report_verdict "$d" "$audit"
        return
    fi
    ms_report_header "$d" "$md" "$llc" "$peak" "$peaknote" "$audit"
    ms_report_tables "$csv" "$md" "$llc" "$cvmax" "$labels"
    ms_report_health "$health" "$md"
    if [ "$plots" = 1 ]; then
        ms_use plot
        local -a pngs
        mapfile -t pngs < <(ms_plot_dir "$d" "$csv")
        echo
        if [ "$md" = 1 ]; then
            echo "## Plots"
            echo
            for v in "${pngs[@]}"; do printf '![%s](%s)\n' "${v##*/}" "plots/${v##*/}"; done
        else
            echo "Plots:"
            for v in "${pngs[@]}"; do printf '  %s\n' "$v"; done
        fi
        [ "${#pngs[@]}" -gt 0 ] || echo "  (no data to plot: a plot needs 2+ thread counts or sizes)"
    fi
    ms_report_verdict "$d" "$audit"
}

# ms_report_is_stdout PATH: 0 when writing PATH writes memsuite's standard
# output: "-", /dev/stdout or any alias of a descriptor (ms_out_fd_alias),
# or the very file, pipe or terminal standard output is open on.
ms_report_is_stdout() {
    local fd
    [ "$1" != - ] || return 0
    if fd=$(ms_out_fd_alias "$1"); then
        case "$fd" in
            1) return 0 ;;
            2) fd=$MS_OUT_STDERR ;;
        esac
        [ "/dev/fd/$fd" -ef "/dev/fd/$MS_OUT_STDOUT" ]
        return
    fi
    [ "$1" -ef "/dev/fd/$MS_OUT_STDOUT" ]
}

# Exit 1 (after the report is printed) when a cell file is invalid or no
# cell is valid: the tables leave such cells out, and the exit status
# must not read as "all is well".
ms_report_verdict() {
    local d="$1" audit="$2" nvalid ninvalid nmissing
    nvalid=$(awk -F '\t' '$2 == "valid"' "$audit" | wc -l)
    ninvalid=$(awk -F '\t' '$2 == "invalid"' "$audit" | wc -l)
    nmissing=$(awk -F '\t' '$2 == "missing"' "$audit" | wc -l)
    if [ "$ninvalid" -gt 0 ]; then
        ms_error "$ninvalid invalid cell file(s) in $d (listed at the top); their figures are left out"
    fi
    if [ "$nmissing" -gt 0 ]; then
        ms_error "$nmissing cell file(s) missing from the complete run $d (listed at the top); their figures are absent"
    fi
    if [ "$nvalid" -eq 0 ]; then
        ms_error "no valid cell in $d: nothing was measured"
    fi
    [ "$ninvalid" -eq 0 ] && [ "$nmissing" -eq 0 ] && [ "$nvalid" -gt 0 ]
}

# The cell count is the audit's (ms_rundir_audit: the cell files as they
# are now), never run.json's own cells_done.
ms_report_header() {
    local d="$1" md="$2" llc="$3" peak="$4" peaknote="$5" audit="$6" info warns counts invalid toolargs
    counts=$(ms_report_counts "$audit")
    info=$(jq -r --arg counts "$counts" '"host \(.host // "?"), created \(.created // "?"), \($counts), " +
        (if .complete == true then "complete" else "INCOMPLETE (\(.status // "?"))" end) +
        ", bind \(.config.bind // "?")" + (if .config.profile then ", profile \(.config.profile)" else "" end) +
        (if .config.enforce then ", enforced: \(.config.enforce)" else "" end) | gsub("[\t\n\r]"; " ")' "$d/run.json")
    invalid=$(ms_rundir_audit_problems "$d" "$audit")
    toolargs=$(ms_report_tool_args "$d")
    warns=""
    [ -f "$d/env.json" ] && warns=$(jq -r '[.facts[]? | select(.verdict == "warn") | "\(.key)=\(.value)"] | join(", ")' "$d/env.json")
    if [ "$md" = 1 ]; then
        printf '# memsuite report: `%s`\n\n- %s\n' "$d" "$info"
        [ -n "$invalid" ] && printf -- '- %s\n' "${invalid//$'\n'/$'\n'- }"
        [ "$llc" -gt 0 ] && printf -- '- LLC %s; in-cache below %s per array\n' "$(ms_human_bytes "$llc")" "$(ms_human_bytes $((4 * llc)))"
        if [ -n "$peak" ]; then printf -- '- theoretical peak %s MB/s (%s)\n' "$peak" "$peaknote"; else printf -- '- theoretical peak unavailable: %s\n' "$peaknote"; fi
        [ -n "$warns" ] && printf -- '- environment warnings: %s\n' "$warns"
        [ -n "$toolargs" ] && printf -- '- tool arguments: %s\n' "$toolargs"
        echo
    else
        printf 'memsuite report: %s\n  %s\n' "$d" "$info"
        [ -n "$invalid" ] && printf '  %s\n' "${invalid//$'\n'/$'\n'  }"
        [ "$llc" -gt 0 ] && printf '  LLC %s; in-cache below %s per array\n' "$(ms_human_bytes "$llc")" "$(ms_human_bytes $((4 * llc)))"
        if [ -n "$peak" ]; then printf '  theoretical peak %s MB/s (%s)\n' "$peak" "$peaknote"; else printf '  theoretical peak unavailable: %s\n' "$peaknote"; fi
        [ -n "$warns" ] && printf '  environment warnings: %s\n' "$warns"
        [ -n "$toolargs" ] && printf '  tool arguments: %s\n' "$toolargs"
        echo
    fi
    return 0
}

# ms_report_counts AUDIT: "3/4 cells valid, 1 invalid, 1 missing, 2 not run"
ms_report_counts() {
    awk -F '\t' '{ n[$2]++ } END {
        printf "%d/%d cells valid", n["valid"], NR
        if (n["invalid"]) printf ", %d invalid", n["invalid"]
        if (n["missing"]) printf ", %d missing", n["missing"]
        if (n["notrun"]) printf ", %d not run", n["notrun"] }' "$1"
}

# ms_report_tool_args DIR: run.json's config.tool_args (memsuite run
# --<tool>-args) as "mbw: -b 4096; stream: --nt-stores"; empty when none.
ms_report_tool_args() {
    jq -r '[.config.tool_args // {} | to_entries[]? | select(.value | type == "array")
            | "\(.key): \(.value | map(tostring) | join(" "))"] | sort | join("; ")' "$1/run.json"
}

# ms_report_labels DIR AUDIT: "cell<TAB>label" of every valid cell
ms_report_labels() {
    local -a files=()
    mapfile -t files < <(ms_rundir_valid_files "$1" "$2")
    ms_res_labels "${files[@]}"
}

# One table per bench[:scenario] from summary.csv (headline metrics).
# ms_report_tables CSV MODE LLC CVMAX [LABELS]; MODE 0 text, 1 Markdown,
# 2 HTML; LABELS (ms_report_labels) flags rows whose cell is "tuned".
ms_report_tables() {
    awk -F, -v md="$2" -v llc="$3" -v cvmax="$4" -v labels="${5:-}" '
    BEGIN {
        if (labels != "") while ((getline l < labels) > 0) { split(l, f, "\t"); label[f[1]] = f[2] }
    }
    function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
    function human(b,   u, i) {
        split("B KiB MiB GiB TiB", u, " "); i = 1
        while (b >= 1024 && i < 5) { b /= 1024; i++ }
        return (i == 1 ? sprintf("%d B", b) : sprintf("%.1f %s", b, u[i]))
    }
    NR == 1 { next }
    $14 != 1 { next }
    {
        g = $2 (($3 == "-") ? "" : ":" $3)
        if (!(g in seen)) { seen[g] = 1; groups[++ng] = g }
        row = $4 SUBSEP $5
        if (!((g, row) in seenrow)) { seenrow[g, row] = 1; nrow[g]++; rs[g, nrow[g]] = $4; rt[g, nrow[g]] = $5 }
        if (!((g, $7) in seenrec)) { seenrec[g, $7] = 1; nrec[g]++; rec[g, nrec[g]] = $7; mname[g, $7] = $8 " (" $9 ")" }
        val[g, $4, $5, $7] = $10
        if ($12 != "" && $12 * 100 > cvmax) noisy[g, $4, $5] = 1
        if (label[$1] == "tuned") tuned[g, $4, $5] = 1
    }
    END {
        for (gi = 1; gi <= ng; gi++) {
            g = groups[gi]
            for (i = 2; i <= nrow[g]; i++) for (j = i; j > 1 && (rs[g, j] + 0 < rs[g, j - 1] + 0 || (rs[g, j] + 0 == rs[g, j - 1] + 0 && rt[g, j] + 0 < rt[g, j - 1] + 0)); j--) {
                x = rs[g, j]; rs[g, j] = rs[g, j - 1]; rs[g, j - 1] = x
                x = rt[g, j]; rt[g, j] = rt[g, j - 1]; rt[g, j - 1] = x
            }
            units = ""; for (k = 1; k <= nrec[g]; k++) { u = mname[g, rec[g, k]]; if (index(units, u) == 0) units = units (units == "" ? "" : ", ") u }
            if (md == 2) {
                printf "<h3>%s</h3>\n<table class=\"bench\" data-bench=\"%s\">\n<caption>values: %s</caption>\n<tr><th class=\"num\">size</th><th class=\"num\">threads</th>", esc(g), esc(g), esc(units)
                for (k = 1; k <= nrec[g]; k++) printf "<th class=\"num\">%s</th>", esc(rec[g, k])
                printf "<th>flags</th></tr>\n"
            } else if (md) {
                printf "## %s\n\nvalues: %s\n\n| size | threads |", g, units
                for (k = 1; k <= nrec[g]; k++) printf " %s |", rec[g, k]
                printf " flags |\n|---:|---:|"
                for (k = 1; k <= nrec[g]; k++) printf "---:|"
                printf "---|\n"
            } else {
                printf "%s: %s\n%12s %8s", g, units, "size", "threads"
                for (k = 1; k <= nrec[g]; k++) printf " %12s", rec[g, k]
                printf "  flags\n"
            }
            for (i = 1; i <= nrow[g]; i++) {
                s = rs[g, i]; t = rt[g, i]
                flags = ""
                if (llc > 0 && s + 0 < 4 * llc) flags = "in-cache"
                if ((g, s, t) in noisy) flags = flags (flags == "" ? "" : ",") "noisy"
                if ((g, s, t) in tuned) flags = flags (flags == "" ? "" : ",") "tuned"
                if (md == 2) printf "<tr%s><td class=\"num\">%s</td><td class=\"num\">%s</td>", (index(flags, "in-cache") ? " class=\"in-cache\"" : ""), human(s), esc(t)
                else if (md) printf "| %s | %s |", human(s), t
                else printf "%12s %8s", human(s), t
                for (k = 1; k <= nrec[g]; k++) {
                    v = ((g, s, t, rec[g, k]) in val) ? val[g, s, t, rec[g, k]] : "-"
                    if (v != "-" && v != "NA") v = sprintf("%.1f", v)
                    if (md == 2) printf "<td class=\"num\">%s</td>", esc(v)
                    else if (md) printf " %s |", v; else printf " %12s", v
                }
                if (md == 2) printf "<td>%s</td></tr>\n", flags
                else if (md) printf " %s |\n", flags; else printf "  %s\n", flags
            }
            if (md == 2) print "</table>"; else print ""
        }
        if (ng == 0) print (md == 2 ? "<p>(no finished cells)</p>" : "(no finished cells)\n")
    }' "$1"
}

ms_report_health() {
    local f="$1" md="$2" v c d np nw ns
    np=$(awk -F '\t' '$1 == "pass"' "$f" | wc -l)
    nw=$(awk -F '\t' '$1 == "warn"' "$f" | wc -l)
    ns=$(awk -F '\t' '$1 == "skip"' "$f" | wc -l)
    if [ "$md" = 1 ]; then
        printf '## Health checks\n\n| verdict | check | detail |\n|---|---|---|\n'
    else
        echo "Health checks:"
    fi
    while IFS=$'\t' read -r v c d; do
        if [ "$md" = 1 ]; then printf '| %s | %s | %s |\n' "$v" "$c" "$d"
        else printf '  %-5s %-13s %s\n' "$v" "$c" "$d"; fi
    done <"$f"
    echo
    printf 'health: %s pass, %s warn, %s skip\n' "$np" "$nw" "$ns"
}
