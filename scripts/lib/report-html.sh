# shellcheck shell=bash
# report-html: `memsuite report --html`, one self-contained HTML file.
#
# Sections, in order (ids for links and tests):
#   #run          host, dates, cell counts, completeness; invalid cells
#   #environment  every knob that shapes the figures: the run's own
#                 settings (run.json config: sizes, threads, reps, bind,
#                 tool arguments, profile, enforcement, LLC) and every fact
#                 of env.json with its verdict and why
#   #health       the health checks (the text report's, same thresholds)
#   #results      a table per bench[:scenario] (table.bench), the text
#                 report's rows and units
#   #plots        the PNGs of plot.sh (img.plot), embedded as data: URIs
# No script, no external resource: a Content-Security-Policy forbids any
# load but data: images and the inline style, so a browser shows it
# offline as it is.  Text from DIR's files is HTML-escaped (jq @html, or
# esc() in awk) and control characters pass through ms_printable.

ms_use plot

MS_HTML_CSS='
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1000px; color: #111; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0 1em; }
th, td { border: 1px solid #ccc; padding: .2em .6em; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.env { width: 100%; } table.env td:nth-child(2) { width: 38%; }
tr.in-cache td { color: #666; background: #f4f4f4; }
.pass { color: #060; } .warn { color: #a40; font-weight: bold; } .skip, .unavailable { color: #777; }
.ok { color: #060; } .invalid { color: #b00; font-weight: bold; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption, .note { color: #555; font-size: .9em; }
code { font-size: .95em; }
'

# ms_report_html DIR CSV AUDIT HEALTH LLC PEAK PEAKNOTE CVMAX LABELS: the
# document on stdout (plots are rendered into a temp directory, never
# into DIR).
ms_report_html() {
    local d="$1" csv="$2" audit="$3" health="$4" llc="$5" peak="$6" peaknote="$7" cvmax="$8" labels="$9"
    local pd png noplot=""
    pd=$(ms_mktemp -d)
    local -a pngs=()
    if noplot=$(ms_plot_available); then
        mapfile -t pngs < <(ms_plot_dir "$d" "$csv" "$pd")
    else
        ms_warn "$noplot; the HTML report has no plots"
    fi
    {
        ms_report_html_head "$d"
        ms_report_html_run "$d" "$audit" "$llc" "$peak" "$peaknote"
        ms_report_html_env "$d" "$audit"
        printf '<h2 id="health">Health checks</h2>\n'
        ms_report_html_health "$health"
        printf '<h2 id="results">Results</h2>\n<p class="note">The headline metric of each cell, in the unit the tool reports; grey rows are in cache (array &lt; 4 x LLC), &quot;noisy&quot; rows have a CV over the repetitions above %s%%, &quot;tuned&quot; rows a result the tool labelled tuned (tool arguments).</p>\n' "$cvmax"
        ms_report_tables "$csv" 2 "$llc" "$cvmax" "$labels"
        printf '<h2 id="plots">Plots</h2>\n'
        if [ -n "$noplot" ]; then
            printf '<p class="warn">%s.</p>\n' "$noplot"
        elif [ "${#pngs[@]}" -eq 0 ]; then
            printf '<p class="note">No plot: a plot needs 2 or more thread counts or sizes of one benchmark.</p>\n'
        fi
        for png in "${pngs[@]}"; do
            printf '<figure><img class="plot" alt="%s" src="data:image/png;base64,' "${png##*/}"
            base64 -w0 -- "$png"
            printf '"><figcaption>%s</figcaption></figure>\n' "${png##*/}"
        done
        printf '<p class="note">Written by memsuite %s report --html.</p>\n</body>\n</html>\n' "$MS_VERSION"
    } | ms_printable
}

ms_report_html_head() {
    local title
    title=$(jq -r '"memsuite report: \(.host // "?" | tostring) \(.created // "" | tostring)" | @html' "$1/run.json")
    printf '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    printf '<meta http-equiv="Content-Security-Policy" content="default-src '"'none'"'; img-src data:; style-src '"'unsafe-inline'"'">\n'
    printf '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    printf '<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n' "$title" "$MS_HTML_CSS"
}

# The run: who, when, how many cells, complete or not, invalid cells.
ms_report_html_run() {
    local d="$1" audit="$2" llc="$3" peak="$4" peaknote="$5" counts
    counts=$(ms_report_counts "$audit")
    printf '<h1>memsuite report</h1>\n<section id="run">\n'
    jq -r --arg counts "$counts" --arg dir "$d" '
        "<p><b>\(.host // "?" | tostring | @html)</b>, run started \(.created // "?" | tostring | @html)"
        + (if .finished then ", finished \(.finished | tostring | @html)" else "" end)
        + ": \($counts | @html), "
        + (if .complete == true then "complete" else "<span class=\"warn\">INCOMPLETE (\(.status // "?" | tostring | @html))</span>" end)
        + ".<br><span class=\"note\">results directory <code>\($dir | @html)</code>, memsuite \(.memsuite_version // "?" | tostring | @html)</span></p>"' "$d/run.json"
    ms_rundir_audit_problems "$d" "$audit" | awk '
        function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
        { if (!n++) print "<ul class=\"invalid\">"; print "<li>" esc($0) "</li>" }
        END { if (n) print "</ul>" }'
    printf '</section>\n'
}

# Every knob that shapes the figures: the run's settings, how each tool
# was built (from its cells' results), then env.json.
ms_report_html_env() {
    local d="$1" audit="$2"
    local -a files=()
    printf '<h2 id="environment">Environment</h2>\n<table class="env">\n<tr><th>setting</th><th>value</th><th>state</th><th>why / note</th></tr>\n'
    jq -r 'def row($k; $v): "<tr><td>\($k)</td><td>\($v | tostring | @html)</td><td class=\"note\">run setting</td><td></td></tr>";
        def human: if . >= 1073741824 then "\(. / 1073741824 * 10 | round / 10) GiB"
                   elif . >= 1048576 then "\(. / 1048576 * 10 | round / 10) MiB"
                   elif . >= 1024 then "\(. / 1024 * 10 | round / 10) KiB" else "\(.) B" end;
        . as $run | .config // {} |
        row("benchmarks"; (.benches // [] | join(", "))),
        row("sizes per array"; (.sizes_bytes // [] | map(human) | join(", "))),
        row("threads"; (.threads // [] | map(tostring) | join(", "))),
        row("repetitions"; (.reps // "tool default")),
        row("binding"; (.bind // "?")),
        row("cooldown"; "\(.cooldown_s // "?") s"),
        row("quick (smoke) run"; (if .quick then "yes: short, not for acceptance" else "no" end)),
        row("LLC (4x rule)"; (if (.llc_bytes // 0) > 0 then (.llc_bytes | human) else "unknown" end)),
        row("tool arguments"; (.tool_args // {} | to_entries | map("\(.key): \(.value | map(tostring) | join(" "))")
                              | if length == 0 then "none (standard)" else join("; ") end)),
        row("GLIBC_TUNABLES"; (.glibc_tunables // "none")),
        row("OS profile"; (.profile // "none")),
        row("enforced knobs"; (.enforce // "none (the machine as it was)")),
        ($run.cell_env // {} | [.[]?.thp_policy? // empty | tostring] | unique
         | select(length > 0) | row("THP policy during the cells"; join(", ")))' "$d/run.json"
    mapfile -t files < <(ms_rundir_valid_files "$d" "$audit")
    ms_res_builds "${files[@]}" | awk -F '\t' '
        function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
        { printf "<tr><td>build: %s</td><td>%s</td><td class=\"note\">cell results</td><td></td></tr>\n", esc($1), esc($2) }'
    if [ -f "$d/env.json" ]; then
        jq -r '
            (if .peak_mbps then "<tr><td>theoretical peak</td><td>\(.peak_mbps | tostring | @html) MB/s</td><td class=\"ok\">ok</td><td>\(.peak_note // "" | tostring | @html)</td></tr>"
             else "<tr><td>theoretical peak</td><td></td><td class=\"unavailable\">unavailable</td><td>\(.peak_note // "unknown" | tostring | @html)</td></tr>" end),
            (.facts[]? | "<tr><td>\(.key // "?" | tostring | @html)</td><td>\(.value // "" | tostring | @html)</td>"
                + "<td class=\"\(.verdict // "" | tostring | gsub("[^a-z]"; ""))\">\(.verdict // "" | tostring | @html)</td>"
                + "<td>\(.why // "" | tostring | @html)\(if (.fix // "") != "" then "; fix: \(.fix | tostring | @html)" else "" end)</td></tr>")' "$d/env.json"
    else
        printf '<tr><td>environment</td><td></td><td class="unavailable">unavailable</td><td>no env.json in the results directory</td></tr>\n'
    fi
    printf '</table>\n'
}

ms_report_html_health() {
    awk -F '\t' '
        function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
        BEGIN { print "<table class=\"health\">\n<tr><th>verdict</th><th>check</th><th>detail</th></tr>" }
        { v = $1; gsub(/[^a-z]/, "", v); n[v]++
          printf "<tr><td class=\"%s\">%s</td><td>%s</td><td>%s</td></tr>\n", v, esc($1), esc($2), esc($3) }
        END { print "</table>"
              printf "<p>health: %d pass, %d warn, %d skip</p>\n", n["pass"], n["warn"], n["skip"] }' "$1"
}
