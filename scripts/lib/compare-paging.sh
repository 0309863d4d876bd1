# shellcheck shell=bash
# compare-paging: the huge-page and TLB figures of two results directories
# side by side, cell by cell, where they differ: the THP policy the cell
# ran under (run.json cell_env, else env.json's thp), the tool's
# huge-page mode, the THP share of its buffer and the dTLB miss rate in %
# of loads, and for mencal randread the full-random latency that page
# walks weigh on (ms_res_paging).  The KeyarchOS mencal study explains its
# latency gain with this pair: THP always, TLB miss rate 2.1% -> 1.4%.

ms_use results

# ms_compare_paging A B MARKDOWN(0|1): prints nothing when no cell differs.
ms_compare_paging() {
    local a="$1" b="$2" md="$3" f id pa pb ta tb rows=""
    for f in "$a"/cells/*.json; do
        [ -f "$f" ] || continue
        id="${f##*/}" id="${id%.json}"
        [ -f "$b/cells/$id.json" ] || continue
        pa=$(ms_res_paging "$f") pb=$(ms_res_paging "$b/cells/$id.json")
        ta=$(ms_paging_policy "$a" "$id" "$pa") tb=$(ms_paging_policy "$b" "$id" "$pb")
        rows+="$id"$'\t'"$ta"$'\t'"$tb"$'\t'"$pa"$'\t'"$pb"$'\n'
    done
    [ -n "$rows" ] || return 0
    awk -F '\t' -v md="$md" '
        function pct(v) { return v == "" ? "unavailable" : sprintf("%.1f%%", v) }
        function pct2(v) { return v == "" ? "unavailable" : sprintf("%.2f%%", v) }
        function ns(v) { return v == "" ? "-" : sprintf("%.1f ns", v) }
        function pair(x, y) { return x == y ? x : x " -> " y }
        {
            # $1 id, $2/$3 policy A/B, $4-$8 paging A, $9-$13 paging B
            # (hugepages, THP share %, dTLB miss %, thp_enabled, walk ns)
            if ($2 == $3 && $4 == $9 && pct($5) == pct($10) && pct2($6) == pct2($11)) next
            hp = pair($4 == "" ? "?" : $4, $9 == "" ? "?" : $9)
            w = ""
            if ($8 != "" || $13 != "") {
                w = pair(ns($8), ns($13)); anyw = 1
                if ($8 != "" && $13 != "" && $8 > 0) w = w sprintf(" (%+.1f%%)", ($13 - $8) / $8 * 100)
            }
            line[++n] = $1 SUBSEP pair($2, $3) SUBSEP hp SUBSEP pair(pct($5), pct($10)) SUBSEP pair(pct2($6), pct2($11)) SUBSEP w
        }
        END {
            if (n == 0) exit
            if (md) {
                print "## Huge pages and TLB\n"
                printf "| cell | THP policy | hugepages | THP share | dTLB miss rate (%% of loads) |%s\n", anyw ? " full-random latency |" : ""
                printf "|---|---|---|---|---|%s\n", anyw ? "---|" : ""
            } else {
                print "Huge pages and TLB (A -> B), cells where they differ:"
                l = sprintf("  %-34s %-20s %-18s %-18s %-18s%s", "cell", "THP policy", "hugepages", "THP share", "dTLB miss rate", anyw ? " full-random latency" : "")
                sub(/ +$/, "", l); print l
            }
            for (i = 1; i <= n; i++) {
                split(line[i], c, SUBSEP)
                if (md) printf "| %s | %s | %s | %s | %s |%s\n", c[1], c[2], c[3], c[4], c[5], anyw ? " " (c[6] == "" ? "-" : c[6]) " |" : ""
                else {
                    l = sprintf("  %-34s %-20s %-18s %-18s %-18s%s", c[1], c[2], c[3], c[4], c[5], anyw ? " " (c[6] == "" ? "-" : c[6]) : "")
                    sub(/ +$/, "", l); print l
                }
            }
            print ""
        }' <<<"${rows%$'\n'}"
}

# A value from a file as one line of one field (a jq definition).
MS_PAGING_TEXT='def text: tostring | gsub("[\t\n\r]"; " ");'

# ms_paging_policy DIR ID PAGING: the THP policy the cell ran under:
# run.json's cell_env, else the tool's own sysinfo.thp_enabled, else
# env.json's thp fact, else "?".
ms_paging_policy() {
    local v
    # Text from run.json and env.json: a tab or newline would shift the
    # table's columns or forge a row (MS_PAGING_TEXT).
    v=$(jq -r --arg id "$2" "$MS_PAGING_TEXT"'.cell_env[$id].thp_policy // empty | text' "$1/run.json" 2>/dev/null)
    [ -n "$v" ] || v=$(cut -f 4 <<<"$3")
    [ -n "$v" ] || v=$(jq -r "$MS_PAGING_TEXT"'[.facts[]? | select(.key == "thp_enabled" or .key == "thp") | .value][0] // empty | text' "$1/env.json" 2>/dev/null)
    printf '%s\n' "${v:-?}"
}

# ms_compare_tool_env A B: "key<TAB>A<TAB>B" for what the tools themselves
# saw and env.json cannot know: the allocator in effect inside them
# (sysinfo.allocator of the first cell with one: a preloaded jemalloc
# shows here, not in the shell's environment).
ms_compare_tool_env() {
    local va vb
    va=$(ms_paging_first_fact "$1" allocator) vb=$(ms_paging_first_fact "$2" allocator)
    [ "$va" = "$vb" ] || printf 'allocator (in the tools)\t%s\t%s\n' "${va:-?}" "${vb:-?}"
    return 0
}

ms_paging_first_fact() {     # DIR KEY: the first cell's sysinfo.KEY
    local f v
    for f in "$1"/cells/*.json; do
        [ -f "$f" ] || continue
        v=$(jq -r --arg k "$2" "$MS_PAGING_TEXT"'.sysinfo[$k] // empty | text' "$f" 2>/dev/null) || v=""
        [ -n "$v" ] && { printf '%s\n' "$v"; return 0; }
    done
    return 0
}
