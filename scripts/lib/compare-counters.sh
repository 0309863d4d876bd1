# shellcheck shell=bash
# compare-counters: the counter-derived rates of two results directories
# side by side, cell by cell and record by record: every rate of a
# record's counters block (records[].counters.hardware.rates: IPC, the
# dTLB miss rate in % of loads, LLC misses per kB moved, bytes per
# cycle, ...) that has a value in A or in B, with its formula.  The THP
# share beside it is compare-paging's.  The KeyarchOS mencal study explains
# its latency gain with one of these rates: the dTLB miss rate 2.1% -> 1.4%
# under THP.

# ms_res_rates FILE: "record<TAB>key<TAB>value<TAB>unit<TAB>formula" per
# rate with a value ("" when null); a rate written as a bare number (results
# from before the rate objects) has an empty unit and formula.
ms_res_rates() {
    jq -r '.records[]? | .name as $r | (.counters.hardware.rates? // {}) | to_entries[]
        | select(.key | endswith("_unavailable") | not)
        | (if (.value | type) == "object" then .value else {value: .value} end) as $v
        | [$r, .key, ($v.value | if type == "number" then tostring else "" end),
           ($v.unit // ""), ($v.formula // "")] | @tsv' "$1" 2>/dev/null
}

# ms_compare_counters A B MARKDOWN(0|1): prints nothing when no record of a
# cell in both has a counter rate with a value.
ms_compare_counters() {
    local a="$1" b="$2" md="$3" f id rows=""
    for f in "$a"/cells/*.json; do
        [ -f "$f" ] || continue
        id="${f##*/}" id="${id%.json}"
        [ -f "$b/cells/$id.json" ] || continue
        rows+=$(ms_res_rates "$f" | sed "s/^/$id\tA\t/")$'\n'
        rows+=$(ms_res_rates "$b/cells/$id.json" | sed "s/^/$id\tB\t/")$'\n'
    done
    awk -F '\t' -v md="$md" '
        # $1 cell, $2 A|B, $3 record, $4 key, $5 value, $6 unit, $7 formula
        NF < 5 { next }
        {
            k = $1 SUBSEP $3 SUBSEP $4
            if (!(k in seen)) { seen[k] = 1; order[++n] = k }
            if ($5 != "") { v[k, $2] = $5; any[k] = 1 }
            if ($7 != "") what[k] = $7 ($6 != "" ? " (" $6 ")" : "")
        }
        function val(k, s) { return ((k, s) in v) ? sprintf("%.4g", v[k, s]) : "unavailable" }
        END {
            for (i = 1; i <= n; i++) if (order[i] in any) shown++
            if (!shown) exit
            if (md) {
                print "## Counter rates\n"
                print "| cell | record | rate | A | B | change | formula |"
                print "|---|---|---|---|---|---|---|"
            } else {
                print "Counter rates (A -> B), per cell and record:"
                printf "  %-34s %-10s %-22s %-12s %-12s %-8s %s\n", "cell", "record", "rate", "A", "B", "change", "formula"
            }
            for (i = 1; i <= n; i++) {
                k = order[i]
                if (!(k in any)) continue
                split(k, c, SUBSEP)
                ch = ((k, "A") in v && (k, "B") in v && v[k, "A"] != 0) ? sprintf("%+.1f%%", (v[k, "B"] - v[k, "A"]) / v[k, "A"] * 100) : "-"
                if (md) printf "| %s | %s | %s | %s | %s | %s | %s |\n", c[1], c[2], c[3], val(k, "A"), val(k, "B"), ch, what[k]
                else {
                    l = sprintf("  %-34s %-10s %-22s %-12s %-12s %-8s %s", c[1], c[2], c[3], val(k, "A"), val(k, "B"), ch, what[k])
                    sub(/ +$/, "", l); print l
                }
            }
            print ""
        }' <<<"$rows"
}
