# shellcheck shell=bash
# cluster-aggregate: the cluster report from the node reports in a results
# directory (see cluster-node.sh for their format).  One jq pass reads
# every report (10,000 in well under a second), awk does the rest:
#
#   - each node is judged against the reference again (expected x (1 -
#     lower_pct/100) <= value <= expected x (1 + upper_pct/100)): PASS or
#     FAIL; a node whose check could not run is ERROR; so is a node whose
#     report file <node>.json cannot be read (unreadable, empty, not JSON,
#     no node name): the node is named by the file, and never dropped,
#     expected list or not; an expected node without a report is MISSING;
#   - per metric, over the nodes that reported a value: median and MAD
#     (median absolute deviation); a node more than k x MAD' from the
#     median, MAD' = max(MAD, floor% x |median|), is an outlier: SLOW on
#     the slow side, HIGH on the fast side, even when it passes the
#     reference.  The floor keeps a cluster of near-identical nodes from
#     flagging differences of a few tenths of a percent.  Lower is better
#     for metrics in s/ms/us/ns, higher for the others;
#   - nodes are listed MISSING and ERROR first, then slowest first: by
#     their worst metric relative to its median.
#
# Reports made against another reference (by canonical content) are an
# error: aggregating them would mix tolerances.  With a run id only the
# reports of that run count (older ones are reported as stale).

ms_use cluster-node

# ms_cluster_flatten DIR RUN_ID: TSV lines from every DIR/*.json:
#   N node verdict ref_id exit summary file finished
#   M node file metric value
#   U file why            (a node report file that cannot be read: the
#                          node is the file name less .json)
#   X file why            (not a node report: another schema)
#   S file run_id         (a report of another run)
# Files jq cannot parse are found by bisection and reported as U.
MS_CLUSTER_JQ='
def clean: tostring;   # @tsv escapes tabs and newlines itself (gsub is slow)
if type == "object" and .schema == $schema then
    if $rid != "" and (.run_id // "") != $rid then
        ["S", input_filename, (.run_id // "none" | clean)] | @tsv
    else
        (.node // "" | clean) as $n
        | if $n == "" then ["U", input_filename, "has no node name"] | @tsv
          else
            (["N", $n, (.verdict // "ERROR" | clean), (.ref.id // "" | clean), (.exit // "" | clean),
              (.summary // "" | clean), input_filename, (.finished // "" | clean)] | @tsv),
            (.metrics[]? | ["M", $n, input_filename, ((.record // "?") + "." + (.metric // "?") | clean),
                            (if (.value | type) == "number" then .value else "NA" end)] | @tsv)
          end
    end
else
    ["X", input_filename, "is not a node report (schema \(if type == "object" then .schema // "none" else type end | tostring))"] | @tsv
end'

ms_cluster_jq_files() {     # FILE... -> flat lines; 1 when jq failed
    jq -r --arg schema "$MS_CLUSTER_NODE_SCHEMA" --arg rid "$MS_CLUSTER_RID" "$MS_CLUSTER_JQ" "$@" 2>/dev/null
}

# Bisection: a file jq cannot parse spoils the whole call.
ms_cluster_flatten_list() {
    local out
    if out=$(ms_cluster_jq_files "$@"); then
        [ -n "$out" ] && printf '%s\n' "$out"
        return 0
    fi
    if [ $# -eq 1 ]; then
        if [ ! -r "$1" ]; then
            printf 'U\t%s\tcannot be read (permission denied?)\n' "$1"
        else
            # jq's own words say where the text breaks off.
            out=$(jq empty "$1" 2>&1 | head -n 1 | tr '\t' ' ') || true
            printf 'U\t%s\tis not valid JSON%s\n' "$1" "${out:+ ($out)}"
        fi
        return 0
    fi
    local half=$(($# / 2))
    ms_cluster_flatten_list "${@:1:half}"
    ms_cluster_flatten_list "${@:half+1}"
}

# The fast path: node reports as cluster-node.sh writes them (jq -c: one
# line, keys in its order) are read by one awk pass, no JSON parser:
# 10,000 reports in a fraction of a second.  A report that is not exactly
# that shape (several lines, an escape or a control character in a
# string, other keys or order, another schema) is not guessed at: its
# file name goes to REJECTS and the jq path reads it.  Output lines as
# MS_CLUSTER_JQ's.
MS_CLUSTER_AWK='
function flush() {
    if (cur != "" && !bad) printf "%s", buf
    if (cur != "" && bad) print cur > rejects
    buf = ""; bad = 0; cur = ""
}
FNR == 1 { flush(); cur = FILENAME }
FNR > 1 || bad { bad = 1; next }
{
    line = $0
    # no escapes, no control characters: every string is plain text
    if (index(line, "\\") || line ~ /[\001-\037]/) { bad = 1; next }
    q = "\"[^\"]*\""
    if (!match(line, "^[{]\"schema\":\"" schema "\",\"node\":" q ",\"host\":" q ",\"run_id\":" q ",\"ref\":[{]\"id\":" q)) { bad = 1; next }
    head = substr(line, 1, RLENGTH)
    split(head, h, "\"")
    # h[8] node, h[16] run_id, h[22] ref id
    node = h[8]; rid = h[16]; refid = h[22]
    if (!match(line, ",\"verdict\":" q ",\"exit\":-?[0-9]+,\"started\":" q ",\"finished\":" q ",\"seconds\":-?[0-9]+,\"summary\":" q ",\"metrics\":\\[")) { bad = 1; next }
    mid = substr(line, RSTART, RLENGTH); rest = substr(line, RSTART + RLENGTH)
    split(mid, m, "\"")
    # m[4] verdict, m[7] ":<exit>,", m[14] finished, m[20] summary
    verdict = m[4]; ex = m[7]; sub(/^:/, "", ex); sub(/,$/, "", ex); fin = m[14]; summ = m[20]
    if (wantrid != "" && rid != wantrid) { buf = buf sprintf("S\t%s\t%s\n", FILENAME, rid); next }
    if (node == "") { buf = buf sprintf("U\t%s\thas no node name\n", FILENAME); next }
    out = sprintf("N\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", node, verdict, refid, ex, summ, FILENAME, fin)
    num = "-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?"
    mre = "^[{]\"record\":" q ",\"metric\":" q ",\"unit\":" q ",\"expected\":" num ",\"value\":(" num "|null),\"pass\":(true|false)[}]"
    while (match(rest, mre)) {
        split(substr(rest, 1, RLENGTH), f, "\"")
        v = substr(rest, 1, RLENGTH); sub(/.*"value":/, "", v); sub(/,.*/, "", v)
        out = out sprintf("M\t%s\t%s\t%s.%s\t%s\n", node, FILENAME, f[4], f[8], (v == "null" ? "NA" : v))
        rest = substr(rest, RLENGTH + 1)
        if (substr(rest, 1, 1) == ",") rest = substr(rest, 2)
    }
    if (substr(rest, 1, 10) != "],\"lines\":") { bad = 1; next }
    buf = buf out
}
END { flush() }'

ms_cluster_flatten() {
    local dir="$1" redo rejects nl=$'\n'
    MS_CLUSTER_RID="$2"
    redo=$(ms_mktemp)
    rejects=$(ms_mktemp)
    # An empty file gives jq nothing to say: name it here (a truncated report).
    find "$dir" -maxdepth 1 -type f -name '[!.]*.json' -empty -print0 | sort -z |
        while IFS= read -r -d '' f; do printf 'U\t%s\tis empty (a truncated report?)\n' "$f"; done
    # The awk fast path (above); xargs keeps each call within the argument
    # limit.  A file name with a newline cannot be listed in REJECTS: such
    # files go to the jq path directly.
    find "$dir" -maxdepth 1 -type f -name '[!.]*.json' ! -empty ! -name "*$nl*" -print0 | sort -z |
        xargs -0 -r -n 4000 awk -v schema="$MS_CLUSTER_NODE_SCHEMA" -v wantrid="$MS_CLUSTER_RID" \
            -v rejects="$rejects" "$MS_CLUSTER_AWK"
    # The rest through jq; the files of a chunk jq fails on are listed in
    # $redo and redone by bisection.
    { tr '\n' '\0' <"$rejects"
      find "$dir" -maxdepth 1 -type f -name '[!.]*.json' ! -empty -name "*$nl*" -print0; } |
        xargs -0 -r -n 4000 bash -c '
            out=$(jq -r --arg schema "$0" --arg rid "$1" "$2" "${@:4}" 2>/dev/null) &&
                { [ -z "$out" ] || printf "%s\n" "$out"; exit 0; }
            printf "%s\0" "${@:4}" >>"$3"' "$MS_CLUSTER_NODE_SCHEMA" "$MS_CLUSTER_RID" "$MS_CLUSTER_JQ" "$redo"
    if [ -s "$redo" ]; then
        local -a files
        mapfile -d '' -t files <"$redo"
        ms_cluster_flatten_list "${files[@]}"
    fi
}

# ms_cluster_select FLAT: one report per node (the latest "finished" when
# a node reported twice); N and M lines of the chosen reports, X and S
# lines as they are, D lines for the duplicates dropped.  A U line
# becomes "U node file why", the node named by its file, unless a valid
# report names that node (then an X line: the broken copy is ignored).
ms_cluster_select() {
    awk -F '\t' -v OFS='\t' '
        NR == FNR {
            if ($1 == "N") {
                if (!($2 in file) || $8 > fin[$2]) {
                    if ($2 in file) dup[$2] = dup[$2] " " file[$2]
                    file[$2] = $7; fin[$2] = $8
                } else dup[$2] = dup[$2] " " $7
            }
            next
        }
        $1 == "N" { if (file[$2] == $7) print; next }
        $1 == "M" { if (file[$2] == $3) print "M", $2, $4, $5; next }
        $1 == "U" {
            n = $2; sub(/.*\//, "", n); sub(/\.json$/, "", n)
            if (n in file) print "X", $2, $3 "; node " n " has a valid report in " file[n]
            else print "U", n, $2, $3
            next
        }
        { print }
        END { for (n in dup) print "D", n, dup[n] }' "$1" "$1"
}

# ms_cluster_refs_check SEL REF_ID REF: 0 when every report used REF;
# else prints the error (which references, how many nodes, examples).
ms_cluster_refs_check() {
    local sel="$1" want="$2" ref="$3" bad
    bad=$(awk -F '\t' -v want="$want" '
        $1 == "N" {
            n[$4]++
            if (shown[$4] < 3) { ex[$4] = ex[$4] (shown[$4] ? "," : "") $2; shown[$4]++ }
        }
        END {
            k = 0; for (id in n) k++
            if (k == 0 || (k == 1 && (want in n))) exit 0
            printf "%d different reference%s: ", k + !(want in n), (k + !(want in n) > 1 ? "s" : "")
            for (id in n)
                printf "%s%s%s: %d node%s (%s%s)", (c++ ? "; " : ""),
                    (id == "" ? "no reference id" : substr(id, 1, 19) "..."), (id == want ? " (this --ref)" : ""),
                    n[id], (n[id] == 1 ? "" : "s"), ex[id], (n[id] > shown[id] ? ",..." : "")
            if (!(want in n)) printf "; none against this --ref (%s...)", substr(want, 1, 19)
            print ""
        }' "$sel")
    [ -z "$bad" ] && return 0
    printf 'mixed reference versions: the node reports were made against %s; rerun the odd nodes against %s, or aggregate each reference separately\n' \
        "$bad" "$ref"
    return 1
}

# ms_cluster_stats SEL REFM K FLOOR_PCT -> per metric:
#   metric unit lower_is_better n median mad mad_used low_fence high_fence
ms_cluster_stats() {
    local sel="$1" refm="$2" k="$3" floor="$4"
    awk -F '\t' -v OFS='\t' '$1 == "M" && $4 != "NA" { print $3, $4 }' "$sel" |
        sort -t $'\t' -k1,1 -k2,2g |
        awk -F '\t' -v OFS='\t' -v OFMT='%.10g' -v k="$k" -v floor="$floor" -v refm="$refm" '
            BEGIN {
                while ((getline line < refm) > 0) {
                    split(line, f, "\t")
                    unit[f[1] "." f[2]] = f[3]
                }
            }
            function lower_better(u) { return u == "s" || u == "ms" || u == "us" || u == "ns" }
            function flush(    med, i, j, c, d, mad, used, lb, lo, hi, need, left, right, dl, dr) {
                if (n == 0) return
                med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
                # MAD: the deviations left of the median fall, those right of
                # it rise: merge the two sorted runs up to the middle.
                i = 1; while (i <= n && v[i] < med) i++
                left = i - 1; right = i
                need = (n % 2) ? (n + 1) / 2 : n / 2
                for (c = 1; c <= need + 1; c++) {
                    dl = (left >= 1) ? med - v[left] : -1
                    dr = (right <= n) ? v[right] - med : -1
                    if (dr < 0 || (dl >= 0 && dl < dr)) { d = dl; left-- } else { d = dr; right++ }
                    if (c == need) m1 = d
                    if (c == need + 1) m2 = d
                }
                mad = (n % 2 || n == 1) ? m1 : (m1 + m2) / 2
                used = mad
                if (used < floor / 100 * (med < 0 ? -med : med)) used = floor / 100 * (med < 0 ? -med : med)
                lb = lower_better(unit[name])
                print name, unit[name], lb, n, med, mad, used, med - k * used, med + k * used
                n = 0
            }
            $1 != name { flush(); name = $1 }
            { v[++n] = $2 + 0 }
            END { flush() }'
}

# ms_cluster_classify SEL REFM STATS EXPECTED K DIR COUNTS -> one line per node:
#   sortkey status outlier node worst_metric worst_value dev_pct detail reason
# sortkey orders MISSING (-4), ERROR (-3: the check could not run or the
# report is unreadable), FAIL (-2..-1: a node that failed
# the reference is listed before every passing one, or --top would hide
# it behind passing outliers), then the worst ratio to the median (lowest
# first).  reason is the text for a drain (empty when none).
ms_cluster_classify() {
    local sel="$1" refm="$2" stats="$3" expected="$4" k="$5" dir="$6" counts="$7"
    awk -F '\t' -v OFS='\t' -v OFMT='%.10g' -v k="$k" -v dir="$dir" -v refm="$refm" -v stats="$stats" \
        -v expected="$expected" -v counts="$counts" '
        BEGIN {
            while ((getline line < refm) > 0) {
                split(line, f, "\t"); m = f[1] "." f[2]
                rm[++nrm] = m; unit[m] = f[3]; low[m] = f[4] * (1 - f[5] / 100)
                high[m] = (f[6] == "-") ? "" : f[4] * (1 + f[6] / 100)
            }
            while ((getline line < stats) > 0) {
                split(line, f, "\t")
                lb[f[1]] = f[3]; med[f[1]] = f[5]; sig[f[1]] = f[7]
            }
            if (expected != "") while ((getline line < expected) > 0) if (line != "") { want[line] = 1; nexp++ }
        }
        $1 == "N" { rep[$2] = 1; verdict[$2] = $3; code[$2] = $5; summ[$2] = $6; next }
        $1 == "U" { rep[$2] = 1; unread[$2] = $3; uwhy[$2] = $4; next }
        $1 == "M" { val[$2, $3] = $4; next }
        function fmt(x) { return sprintf("%.1f", x) }
        END {
            for (node in rep) judge(node)
            for (node in want) if (!(node in rep))
                print -4, "MISSING", "-", node, "-", "-", "-", "no report in " dir, "memsuite: no report"
            for (i = 1; i <= nrm; i++) printf "%s\t%d\t%d\n", rm[i], nslow[rm[i]], nhigh[rm[i]] > counts
            close(counts)
        }
        function judge(node,    dev, i, m, v, fails, why, slow, high_, ratio, worst, wm, wv, z, st, out, reason, detail, note, f) {
            if (node in unread) {
                f = unread[node]; sub(/.*\//, "", f)
                detail = "report unreadable: " f " " uwhy[node]
                if (nexp > 0 && !(node in want)) detail = detail "; not in the expected node list"
                print -3, "ERROR", "-", node, "-", "-", "-", detail, "memsuite: report unreadable"
                return
            }
            if (verdict[node] == "ERROR") {
                # exit 5: the node was busy, nothing was measured; no
                # fault of the node: rerun it, never drain it
                if (code[node] == 5) print -3, "ERROR", "-", node, "-", "-", "-", "busy, not judged (rerun when idle): " summ[node], ""
                else print -3, "ERROR", "-", node, "-", "-", "-", summ[node], "memsuite: check could not run: " substr(summ[node], 1, 120)
                return
            }
            fails = 0; why = ""; slow = ""; high_ = ""; worst = ""
            for (i = 1; i <= nrm; i++) {
                m = rm[i]
                if (!((node, m) in val) || val[node, m] == "NA") {
                    fails++; why = why (why == "" ? "" : "; ") m " missing"
                    continue
                }
                v = val[node, m] + 0
                if (v < low[m] || (high[m] != "" && v > high[m])) {
                    fails++
                    why = why (why == "" ? "" : "; ") m " " fmt(v) (v < low[m] ? " < " fmt(low[m]) : " > " fmt(high[m]))
                }
                if (!(m in med)) continue
                ratio = (lb[m] ? (v > 0 ? med[m] / v : 0) : (med[m] != 0 ? v / med[m] : 1))
                if (worst == "" || ratio < worst) { worst = ratio; wm = m; wv = v }
                z = (sig[m] > 0) ? (v - med[m]) / sig[m] : 0
                if (lb[m]) z = -z
                if (z < -k) nslow[m]++
                else if (z > k) nhigh[m]++
                if (z < -k) slow = slow (slow == "" ? "" : "; ") sprintf("%s %s is %.1f MAD %s the median %s", m, fmt(v), -z, lb[m] ? "above" : "below", fmt(med[m]))
                else if (z > k) high_ = high_ (high_ == "" ? "" : "; ") sprintf("%s %s is %.1f MAD %s the median %s", m, fmt(v), z, lb[m] ? "below" : "above", fmt(med[m]))
            }
            st = (fails > 0 || verdict[node] == "FAIL") ? "FAIL" : "PASS"
            if (st == "FAIL" && why == "") why = summ[node]
            out = (slow != "") ? "SLOW" : (high_ != "") ? "HIGH" : "-"
            detail = (st == "FAIL") ? why : ""
            if (slow != "") detail = detail (detail == "" ? "" : "; ") "outlier: " slow
            else if (high_ != "") detail = detail (detail == "" ? "" : "; ") "outlier: " high_
            if (nexp > 0 && !(node in want)) detail = detail (detail == "" ? "" : "; ") "not in the expected node list"
            reason = ""
            if (st == "FAIL") reason = "memsuite: FAIL " why
            else if (out == "SLOW") reason = "memsuite: outlier " slow
            if (worst == "") { worst = 1; wm = "-"; wv = "-" } else wv = fmt(wv)
            dev = (worst - 1) * 100
            if (dev > -0.05 && dev < 0.05) dev = 0
            print sprintf("%.9f", (st == "FAIL") ? -2 + worst / (1 + worst) : worst), st, out, node, wm, wv, (wm == "-" ? "-" : sprintf("%+.1f%%", dev)), (detail == "" ? "-" : detail), reason
        }' "$sel" | LC_ALL=C sort -t $'\t' -k1,1g -k4,4
}

# ms_cluster_report ... : renders and returns the exit status (0: every
# expected node PASS and none slow; 1 otherwise).
#   ms_cluster_aggregate DIR REF EXPECTED_FILE EXPECTED_FROM RUN_ID K FLOOR FORMAT TOP SUGGEST DRAIN
ms_cluster_aggregate() {
    local dir="$1" ref="$2" expected="$3" exp_from="$4" rid="$5" k="$6" floor="$7"
    local format="$8" top="$9" suggest="${10}" drain="${11}"
    local refid flat sel refm stats nodes counts why nexp

    [ -d "$dir" ] || ms_die "$MS_EX_ENV" "the results directory $dir does not exist; create it on a filesystem every node mounts (mkdir -p $dir) or pass the right path"
    if [ ! -r "$dir" ] || [ ! -x "$dir" ]; then
        ms_die "$MS_EX_ENV" "the results directory $dir is not readable"
    fi
    why=$(ms_ref_validate "$ref") || ms_usage_error "$why"
    refid=$(ms_cluster_ref_id "$ref") || ms_usage_error "cannot read the reference $ref"

    flat=$(ms_mktemp)
    sel=$(ms_mktemp)
    refm=$(ms_mktemp)
    stats=$(ms_mktemp)
    nodes=$(ms_mktemp)
    ms_cluster_flatten "$dir" "$rid" >"$flat"
    ms_cluster_select "$flat" >"$sel"
    why=$(ms_cluster_refs_check "$sel" "$refid" "$ref") || ms_usage_error "$why"
    ms_ref_metrics "$ref" >"$refm"
    ms_cluster_stats "$sel" "$refm" "$k" "$floor" >"$stats"
    counts=$(ms_mktemp)
    ms_cluster_classify "$sel" "$refm" "$stats" "$expected" "$k" "$dir" "$counts" >"$nodes"

    local nrep nbad nstale nunread
    nrep=$(awk -F '\t' '$1 == "N" || $1 == "U"' "$sel" | wc -l)
    nexp=0
    [ -n "$expected" ] && nexp=$(grep -c . "$expected" || true)
    if [ "$nrep" -eq 0 ] && [ "$nexp" -eq 0 ]; then
        ms_die "$MS_EX_FAIL" "no node report in $dir${rid:+ for run $rid}, and no expected node list (--nodes or SLURM_JOB_NODELIST): nothing to judge"
    fi
    nbad=$(awk -F '\t' '$1 == "X"' "$sel" | wc -l)
    nstale=$(awk -F '\t' '$1 == "S"' "$sel" | wc -l)
    awk -F '\t' '$1 == "U" { print "file " $3 " " $4 ": node " $2 " is ERROR (report unreadable)" }' "$sel" |
        head -n 10 | ms_printable | while IFS= read -r why; do ms_warn "$why"; done
    awk -F '\t' '$1 == "X" { print "file " $2 " " $3 " (ignored)" }' "$sel" | head -n 10 | ms_printable | while IFS= read -r why; do ms_warn "$why"; done
    [ "$nbad" -gt 10 ] && ms_warn "... and $((nbad - 10)) more files that are not node reports"
    nunread=$(awk -F '\t' '$1 == "U"' "$sel" | wc -l)
    [ "$nunread" -gt 10 ] && ms_warn "... and $((nunread - 10)) more unreadable node reports (ERROR)"
    [ "$nstale" -gt 0 ] && ms_note "$nstale report(s) in $dir belong to other runs (not run $rid); ignored"
    awk -F '\t' '$1 == "D" { print "node " $2 " reported more than once; using the latest report, not:" $3 }' "$sel" |
        head -n 10 | ms_printable | while IFS= read -r why; do ms_warn "$why"; done

    if [ "$format" = json ]; then
        ms_cluster_render_json "$nodes" "$stats" "$ref" "$refid" "$dir" "$exp_from" "$nexp" "$nrep" "$k" "$floor" "$rid" "$counts"
    else
        ms_cluster_render_text "$nodes" "$stats" "$ref" "$refid" "$dir" "$exp_from" "$nexp" "$nrep" "$k" "$floor" "$top" "$counts"
    fi
    if [ "$suggest" = 1 ] || [ "$drain" = 1 ]; then
        ms_cluster_drain "$nodes" "$drain" || return 1
    fi
    awk -F '\t' '$2 != "PASS" || $3 == "SLOW" { bad = 1 } END { exit bad }' "$nodes"
}

ms_cluster_counts() {   # NODES -> "pass fail error missing slow high"
    awk -F '\t' '{ c[$2]++; if ($3 == "SLOW") s++; if ($3 == "HIGH") h++ }
        END { printf "%d %d %d %d %d %d\n", c["PASS"], c["FAIL"], c["ERROR"], c["MISSING"], s, h }' "$1"
}

ms_cluster_render_text() {
    local nodes="$1" stats="$2" ref="$3" refid="$4" dir="$5" from="$6" nexp="$7" nrep="$8" k="$9" floor="${10}" top="${11}" counts="${12}"
    local pass fail err miss slow high created
    read -r pass fail err miss slow high < <(ms_cluster_counts "$nodes")
    created=$(jq -r '.created // empty' "$ref")
    if [ "$nexp" -gt 0 ]; then
        printf 'memsuite cluster: %d nodes expected (%s), %d reported\n' "$nexp" "$from" "$nrep"
    else
        printf 'memsuite cluster: %d nodes reported (no expected node list: give --nodes to see MISSING nodes)\n' "$nrep"
    fi
    printf '  %d PASS, %d FAIL, %d ERROR, %d MISSING; outliers beyond %s x MAD (MAD at least %s%% of the median): %d slow, %d high\n' \
        "$pass" "$fail" "$err" "$miss" "$k" "$floor" "$slow" "$high"
    printf '  reference %s (%s%s)\n  results   %s\n\n' "$ref" "${refid:0:19}..." "${created:+, created $created}" "$dir"
    awk -F '\t' 'BEGIN { printf "%-32s %-6s %6s %12s %9s %9s %12s %12s %5s %5s\n", "Metric", "Unit", "Nodes", "Median", "MAD", "MAD used", "Slow fence", "High fence", "Slow", "High" }
        FNR == NR { cs[$1] = $2; ch[$1] = $3; next }
        {
            slowf = ($3 == 1) ? $9 : $8; highf = ($3 == 1) ? $8 : $9
            printf "%-32s %-6s %6d %12.1f %9.1f %9.1f %12.1f %12.1f %5d %5d\n", $1, $2, $4, $5, $6, $7, slowf, highf, cs[$1], ch[$1]
        }' "$counts" "$stats"
    echo
    printf '%-20s %-8s %-7s %-32s %12s %9s  %s\n' Node Status Outlier "Worst metric" Value "vs median" Detail
    # By default only the nodes that need a look (not PASS, or an
    # outlier); MS_CLUSTER_ALL=1 (--all) lists every node.
    local shown list total
    list=$(ms_mktemp)
    if [ "${MS_CLUSTER_ALL:-0}" = 1 ]; then cat -- "$nodes"; else awk -F '\t' '$2 != "PASS" || $3 != "-"' "$nodes"; fi >"$list"
    shown=$(wc -l <"$list")
    total=$(wc -l <"$nodes")
    if [ "$top" -gt 0 ] && [ "$shown" -gt "$top" ]; then
        head -n "$top" "$list"
    else
        cat -- "$list"
    fi | awk -F '\t' '{ printf "%-20s %-8s %-7s %-32s %12s %9s  %s\n", $4, $2, $3, $5, $6, $7, $8 }'
    if [ "$top" -gt 0 ] && [ "$shown" -gt "$top" ]; then
        printf '... %d more nodes to look at (all of them: --top 0)\n' "$((shown - top))"
    fi
    if [ "$total" -gt "$shown" ] && [ "${MS_CLUSTER_ALL:-0}" != 1 ]; then
        printf '... and %d node(s) PASS, no outlier (every node: --all)\n' "$((total - shown))"
    fi
}

ms_cluster_render_json() {
    local nodes="$1" stats="$2" ref="$3" refid="$4" dir="$5" from="$6" nexp="$7" nrep="$8" k="$9" floor="${10}" rid="${11}" counts="${12}"
    jq -n -c --rawfile nodes "$nodes" --rawfile stats "$stats" --rawfile counts "$counts" --arg ref "$ref" --arg refid "$refid" \
        --arg dir "$dir" --arg from "$from" --argjson nexp "$nexp" --argjson nrep "$nrep" \
        --argjson k "$k" --argjson floor "$floor" --arg rid "$rid" '
        def rows(s): s | split("\n") | map(select(length > 0) | split("\t"));
        def num: if . == "-" then null else tonumber end;
        (rows($nodes) | map({ node: .[3], status: .[1], outlier: (if .[2] == "-" then null else .[2] end),
                              worst_metric: (if .[4] == "-" then null else .[4] end),
                              worst_value: (.[5] | num),
                              vs_median_pct: (if .[6] == "-" then null else (.[6] | rtrimstr("%") | tonumber) end),
                              detail: (if .[7] == "-" then null else .[7] end),
                              drain_reason: (if .[8] == "" then null else .[8] end) })) as $n
        | { schema: "memsuite/cluster/1", reference: { path: $ref, id: $refid }, results: $dir,
            run_id: (if $rid == "" then null else $rid end),
            expected_from: (if $from == "" then null else $from end),
            expected: $nexp, reported: $nrep,
            counts: { pass: ($n | map(select(.status == "PASS")) | length),
                      fail: ($n | map(select(.status == "FAIL")) | length),
                      error: ($n | map(select(.status == "ERROR")) | length),
                      missing: ($n | map(select(.status == "MISSING")) | length),
                      slow: ($n | map(select(.outlier == "SLOW")) | length),
                      high: ($n | map(select(.outlier == "HIGH")) | length) },
            outlier_rule: { k: $k, mad_floor_pct: $floor,
                            rule: "outside median +- k x max(MAD, mad_floor_pct% x |median|)" },
            metrics: ((rows($counts) | map({key: .[0], value: {slow: (.[1] | tonumber), high: (.[2] | tonumber)}}) | from_entries) as $c
                      | rows($stats) | map({ metric: .[0], unit: .[1], lower_is_better: (.[2] == "1"),
                        nodes: (.[3] | tonumber), median: (.[4] | tonumber), mad: (.[5] | tonumber),
                        mad_used: (.[6] | tonumber),
                        slow_fence: (if .[2] == "1" then .[8] else .[7] end | tonumber),
                        high_fence: (if .[2] == "1" then .[7] else .[8] end | tonumber),
                        outliers: ($c[.[0]] // {slow: 0, high: 0}) })),
            nodes: $n }'
}

# ms_cluster_shell_word S: S as one word a POSIX shell reads back as S
# (as it is when it holds only safe characters, else single-quoted).
ms_cluster_shell_word() {
    if [[ "$1" =~ ^[A-Za-z0-9._,:=/@%+-]+$ ]]; then
        printf '%s' "$1"
    else
        printf "'%s'" "${1//\'/\'\\\'\'}"
    fi
}

# Drain lines for every node that is not PASS or is a slow outlier; with
# DRAIN=1 they are also run.  Node names and reasons come from the node
# reports, which anyone who can write the results directory controls:
# the printed lines quote them so that a shell running them runs only
# scontrol, and a name that is not a plain host name (brackets would be a
# Slurm hostlist: "n[1-2000]" drains the whole cluster) is never drained.
ms_cluster_drain() {
    local nodes="$1" drain="$2" node reason rc=0 line
    local -a cmd
    while IFS=$'\t' read -r node reason; do
        reason=${reason//\"/\'}
        reason=${reason:0:200}
        if ! [[ "$node" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]]; then
            printf '# not drained: node name %s is not a plain host name (letters, digits, ._-)\n' \
                "$(ms_cluster_shell_word "$node")"
            ms_warn "node name $(ms_cluster_shell_word "$node" | ms_printable) (from its report) is not a plain host name; not drained"
            rc=1
            continue
        fi
        # Inside "...": \ $ ` and " are the characters a shell still reads.
        line=${reason//\\/\\\\}
        line=${line//\$/\\\$}
        line=${line//\`/\\\`}
        printf 'scontrol update nodename=%s state=drain reason="%s"\n' "$node" "$line"
        if [ "$drain" = 1 ]; then
            cmd=(scontrol update "nodename=$node" state=drain "reason=$reason")
            if ! line=$("${cmd[@]}" 2>&1); then
                ms_error "drain of $node failed: ${line:-scontrol exited non-zero}"
                rc=1
            fi
        fi
    done < <(awk -F '\t' '$9 != "" { print $4 "\t" $9 }' "$nodes")
    return "$rc"
}
