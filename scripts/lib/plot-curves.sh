# shellcheck shell=bash
# plot-curves: gnuplot scripts for the two curves of a mencal result file,
# from its JSON alone (report --plots and --html, and
# scripts/device-curves.sh --replot on a machine other than the one that
# measured):
#   loaded   latency (median, p99 as points) against the traffic
#            bandwidth measured, one point per delay
#   sweep    bandwidth against working set (log x), a line per kernel and
#            thread count, the detected cache sizes marked
# Needs jq and awk only; the caller runs gnuplot on WORK/plot.gp (data
# files beside it, generated names only, titles reduced to safe text).
# mencal run loaded|sweep --plot draws the same charts at run time.

# ms_curves_kind FILE: "loaded", "sweep", "c2c", "matrix" or nothing
ms_curves_kind() {
    jq -r 'first(.records[]? | select(.tables.curve? != null) | "loaded"),
           first(.records[]? | select(.tables.mountain? != null) | "sweep"),
           first(.records[]? | select(.tables.pairs? != null and .tables.matrix? != null) | "c2c"),
           first(.records[]? | select(.tables.cells? != null and .tables.latency? != null) | "matrix")' \
        "$1" 2>/dev/null | head -n 1
}

# ms_heatmap_gp WORK DATA ROWS COLS TITLE CBLABEL XLABEL YLABEL [BOUNDS]:
# gnuplot lines of one heatmap panel over WORK/DATA (a matrix of numbers,
# NaN where nothing was measured), each cell labelled with its value.
# ROWS and COLS are the tic labels (space-separated numbers); BOUNDS the
# indexes before which a boundary line is drawn ("3 6").
ms_heatmap_gp() {
    local data="$2" rows="$3" cols="$4" i tics k
    printf 'set title "%s"\nset xlabel "%s"\nset ylabel "%s"\nset cblabel "%s"\n' \
        "$(ms_curves_safe "$5")" "$(ms_curves_safe "$7")" "$(ms_curves_safe "$8")" "$(ms_curves_safe "$6")"
    printf 'set palette defined (0 "#fff5eb", 1 "#fd8d3c", 2 "#7f2704")\nset view map\nunset key\n'
    for k in x y; do
        tics="" i=0
        for c in $([ "$k" = x ] && echo "$cols" || echo "$rows"); do
            [[ "$c" =~ ^[0-9]+$ ]] || continue
            tics+="${tics:+, }\"$c\" $i"
            i=$((i + 1))
        done
        # rows from the top: the y range runs from the last row down to the first
        if [ "$k" = x ]; then
            printf 'set xtics (%s)\nset xrange [-0.5:%s]\n' "$tics" "$((i > 0 ? i : 1))-0.5"
        else
            printf 'set ytics (%s)\nset yrange [%s:-0.5]\n' "$tics" "$((i > 0 ? i : 1))-0.5"
        fi
    done
    printf 'unset arrow\n'
    for i in ${9:-}; do
        [[ "$i" =~ ^[0-9]+$ ]] || continue
        printf 'set arrow from %s, graph 0 to %s, graph 1 nohead lw 2 lc rgb "black" front\n' "$i-0.5" "$i-0.5"
        printf 'set arrow from graph 0, first %s to graph 1, first %s nohead lw 2 lc rgb "black" front\n' "$i-0.5" "$i-0.5"
    done
    printf 'plot "%s" matrix using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette, "%s" matrix using 1:2:($3 == $3 ? sprintf("%%.3g", $3) : "") with labels tc rgb "black"\n' "$data" "$data"
}

ms_curves_safe() { printf '%s' "$1" | tr -cd 'A-Za-z0-9 :._()/+<>#%,-'; }

ms_curves_terminal() {
    if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
        echo "pngcairo size 1100,640 noenhanced font ',10'"
    else
        echo "png size 1100,640 noenhanced"
    fi
}

# ms_curves_gp FILE WORK: WORK/plot.gp (and its data) for the curve in
# FILE; returns 1 when FILE holds neither curve or no point.
ms_curves_gp() {
    local f="$1" work="$2" kind title
    kind=$(ms_curves_kind "$f")
    case "$kind" in
        loaded)
            jq -r '.records[] | select(.tables.curve != null) | .tables.curve[] |
                   select((.bandwidth | type) == "number" and (.latency | type) == "number") |
                   "\(.bandwidth / 1000) \(.latency) \(if (.latency_p99 | type) == "number" then .latency_p99 else "NaN" end)"' "$f" >"$work/loaded.dat"
            [ -s "$work/loaded.dat" ] || return 1
            title=$(jq -r '"mencal loaded: latency vs \(.config.loaded.traffic // "?") traffic of \((.config.threads // 2) - 1) threads, \(.sysinfo.cpu_model // "")"' "$f")
            {
                printf 'set terminal %s\nset output\n' "$(ms_curves_terminal)"
                printf 'set title "%s"\n' "$(ms_curves_safe "$title")"
                printf 'set xlabel "traffic bandwidth (GB/s, measured)"\nset ylabel "latency (ns per dependent load)"\n'
                printf 'set grid\nset key outside right top\nset yrange [0:*]\n'
                printf 'plot "loaded.dat" using 1:2 with linespoints lw 2 pt 7 title "median", '
                printf '"loaded.dat" using 1:3 with points pt 6 title "p99 over the windows"\n'
            } >"$work/plot.gp"
            ;;
        sweep)
            local n=0 series k t sep="" marks
            : >"$work/series.txt"
            while IFS=$'\t' read -r k t; do
                n=$((n + 1))
                jq -r --arg k "$k" --argjson t "$t" '.records[] | select(.tables.mountain != null) |
                    .tables.mountain[] | select(.kernel == $k and .threads == $t and (.size | type) == "number" and (.bandwidth | type) == "number") |
                    "\(.size) \(.bandwidth)"' "$f" >"$work/s$n.dat"
                printf '%s\t%s\n' "s$n.dat" "$(ms_curves_safe "$k, $t thread$([ "$t" = 1 ] || echo s)")" >>"$work/series.txt"
            done < <(jq -r '[.records[] | select(.tables.mountain != null) | .tables.mountain[] |
                             [.kernel, .threads]] | unique_by(.) | sort_by(.[0], .[1]) | .[] | @tsv' "$f")
            [ "$n" -gt 0 ] || return 1
            # Numbers only: a value of another type never reaches gnuplot
            # (ms_res_state already calls such a cell invalid).
            marks=$(jq -r '.config.caches as $c | .llc.total_bytes as $l |
                [ (if ($c.l1d_bytes | type) == "number" and $c.l1d_bytes > 0 then "\($c.l1d_bytes) L1d" else empty end),
                  (if ($c.l2_bytes | type) == "number" and $c.l2_bytes > 0 then "\($c.l2_bytes) L2" else empty end),
                  (if ($l | type) == "number" and $l > 0 then "\($l) LLC" else empty end) ] | .[]' "$f" 2>/dev/null || true)
            {
                printf 'set terminal %s\nset output\n' "$(ms_curves_terminal)"
                printf 'set title "mencal sweep: bandwidth vs working set (all arrays, all threads)"\n'
                printf 'set xlabel "working set"\nset ylabel "bandwidth (GB/s, STREAM counting)"\n'
                printf 'set grid\nset key outside right top\nset yrange [0:*]\nset logscale x 2\n'
                printf 'set xtics ("16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456, "1G" 1073741824, "4G" 4294967296.0)\n'
                while read -r b name; do
                    [[ "$b" =~ ^[0-9]+([.][0-9]+)?([eE][+]?[0-9]+)?$ ]] || continue
                    printf 'set arrow from %s, graph 0 to %s, graph 1 nohead dashtype 2 lc rgb "gray40"\n' "$b" "$b"
                    printf 'set label "%s %s" at %s, graph 0.97 right rotate by 90 offset -0.5,0 tc rgb "gray30"\n' \
                        "$name" "$(awk -v b="$b" 'BEGIN { u = "B"; if (b >= 1048576) { b /= 1048576; u = "MiB" } else if (b >= 1024) { b /= 1024; u = "KiB" }; printf "%g %s", b, u }')" "$b"
                done <<<"$marks"
                printf 'plot '
                while IFS=$'\t' read -r series title; do
                    printf '%s"%s" using 1:2 with linespoints lw 2 pt 7 ps 0.6 title "%s"' "$sep" "$series" "$title"
                    sep=", "
                done <"$work/series.txt"
                printf '\n'
            } >"$work/plot.gp"
            ;;
        c2c)
            # the matrix in CPU order, numbers only (a diagonal null is NaN)
            jq -r '.records[] | select(.tables.pairs != null) | .tables as $t | [$t.cpus[].cpu | numbers] as $c
                   | $t.matrix[] | . as $row | [$c[] | $row["cpu\(.)"] | if type == "number" then . else "NaN" end] | join(" ")' \
                "$f" >"$work/c2c.dat"
            [ -s "$work/c2c.dat" ] || return 1
            local cpus bounds
            cpus=$(jq -r '[.records[] | select(.tables.pairs != null) | .tables.cpus[].cpu | numbers] | join(" ")' "$f")
            # a line where the L3 domain (or the package) changes
            bounds=$(jq -r '[.records[] | select(.tables.pairs != null) | .tables.cpus] | first
                            | [range(1; length) as $i | select(.[$i].l3_domain != .[$i - 1].l3_domain
                                                               or .[$i].package != .[$i - 1].package) | $i] | join(" ")' "$f")
            title=$(jq -r '"mencal c2c: one-way latency between CPUs (ns), \(.sysinfo.cpu_model // "")"' "$f")
            {
                printf 'set terminal %s\nset output\n' "$(ms_curves_terminal)"
                ms_heatmap_gp "$work" c2c.dat "$cpus" "$cpus" "$title (lines: L3 or package boundaries)" \
                    "ns, one way" "CPU" "CPU" "$bounds"
            } >"$work/plot.gp"
            ;;
        matrix)
            local m inits targets
            inits=$(jq -r '[.records[] | select(.tables.cells != null) | .tables.latency[].initiator | numbers] | join(" ")' "$f")
            targets=$(jq -r '[.records[] | select(.tables.cells != null) | .tables.latency[0] | keys[] | select(startswith("node")) | ltrimstr("node") | tonumber] | sort | join(" ")' "$f")
            for m in latency bandwidth; do
                jq -r --arg m "$m" '.records[] | select(.tables.cells != null) | .tables[$m][] | . as $row
                       | [keys[] | select(startswith("node"))] | sort_by(ltrimstr("node") | tonumber)
                       | map($row[.] | if type == "number" then . else "NaN" end) | join(" ")' "$f" >"$work/$m.dat"
                [ -s "$work/$m.dat" ] || return 1
            done
            {
                printf 'set terminal %s\nset output\n' "$(ms_curves_terminal)"
                printf 'set multiplot layout 1,2 title "%s"\n' \
                    "$(ms_curves_safe "$(jq -r '"mencal matrix: initiator node x memory node, \(.sysinfo.cpu_model // "")"' "$f")")"
                ms_heatmap_gp "$work" latency.dat "$inits" "$targets" "idle latency (ns)" "ns" "memory node" "initiator node"
                ms_heatmap_gp "$work" bandwidth.dat "$inits" "$targets" "read bandwidth (GB/s)" "GB/s" "memory node" "initiator node"
                printf 'unset multiplot\n'
            } >"$work/plot.gp"
            ;;
        *) return 1 ;;
    esac
}
