# shellcheck shell=bash
# plot: gnuplot PNGs of a results directory, written to DIR/plots/:
#   <bench>-threads.png   bandwidth vs threads per kernel (largest size)
#   <bench>-size.png      bandwidth vs size per kernel (most threads)
#   latency.png           latency vs working set (mencal:sweep cells)
# gnuplot runs in a temp directory on generated file names only, so no
# user text reaches its script except sanitised titles.

ms_use rundir results

ms_plot_safe() { printf '%s' "$1" | tr -cd 'A-Za-z0-9 :._()/+-'; }

ms_plot_terminal() {
    if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
        echo "pngcairo size 900,600 noenhanced"
    else
        echo "png size 900,600 noenhanced"
    fi
}

# ms_plot_render WORK OUT.png TITLE XLABEL YLABEL LOGX(0|1) FILE:TITLE...
ms_plot_render() {
    local work="$1" out="$2" title="$3" xl="$4" yl="$5" logx="$6" spec sep="" i=0
    shift 6
    {
        printf 'set terminal %s\n' "$(ms_plot_terminal)"
        printf 'set output\n'     # stdout: ms_out_write puts it in place
        printf "set title '%s'\n" "$(ms_plot_safe "$title")"
        printf "set xlabel '%s'\nset ylabel '%s'\n" "$(ms_plot_safe "$xl")" "$(ms_plot_safe "$yl")"
        printf 'set grid\nset key outside right top\nset yrange [0:*]\n'
        [ "$logx" = 1 ] && printf 'set logscale x 2\n'
        printf 'plot '
        for spec in "$@"; do
            i=$((i + 1))
            printf "%s'%s' using 1:2 with linespoints lw 2 pt 7 title '%s'" "$sep" "${spec%%:*}" "$(ms_plot_safe "${spec#*:}")"
            sep=", "
        done
        printf '\n'
    } >"$work/plot.gp"
    if ! ms_out_write "$out" ms_plot_gnuplot "$work"; then
        ms_warn "gnuplot failed for $out: ${MS_OUT_ERR:-$(head -n 1 "$work/gnuplot.err")}"
        return 1
    fi
    printf '%s\n' "$out"
}
# ms_plot_gnuplot WORK: the PNG on stdout (the data files are relative to WORK).
ms_plot_gnuplot() {
    (cd -- "$1" && gnuplot plot.gp) 2>"$1/gnuplot.err"
}

# ms_plot_dir DIR SUMMARY_CSV: every plot the data allows; prints the PNG paths
ms_plot_dir() {
    local d="$1" csv="$2" work g bench scen maxsize maxt r n label
    ms_require_cmd gnuplot "install gnuplot-nox for --plots"
    mkdir -p -- "$d/plots" 2>/dev/null || ms_die "$MS_EX_ENV" "cannot create $d/plots"
    work=$(ms_mktemp -d)
    local -a groups recs specs
    mapfile -t groups < <(awk -F, 'NR > 1 && $14 == 1 && $15 != "" && !s[$2 "," $3]++ { print $2 "," $3 }' "$csv")
    for g in "${groups[@]}"; do
        bench="${g%%,*}" scen="${g#*,}"
        label="$bench"
        [ "$scen" != "-" ] && label="$bench-$scen"
        mapfile -t recs < <(awk -F, -v b="$bench" -v s="$scen" 'NR > 1 && $2 == b && $3 == s && $14 == 1 && $15 != "" && !x[$7]++ { print $7 }' "$csv")
        maxsize=$(awk -F, -v b="$bench" -v s="$scen" 'NR > 1 && $2 == b && $3 == s && $4 + 0 > m { m = $4 + 0 } END { printf "%.0f\n", m }' "$csv")
        maxt=$(awk -F, -v b="$bench" -v s="$scen" 'NR > 1 && $2 == b && $3 == s && $5 + 0 > m { m = $5 + 0 } END { print m + 0 }' "$csv")
        n=$(awk -F, -v b="$bench" -v s="$scen" -v z="$maxsize" 'NR > 1 && $2 == b && $3 == s && $4 == z && $14 == 1 && !x[$5]++' "$csv" | wc -l)
        if [ "$n" -gt 1 ]; then
            specs=()
            local i=0
            for r in "${recs[@]}"; do
                i=$((i + 1))
                awk -F, -v b="$bench" -v s="$scen" -v z="$maxsize" -v r="$r" \
                    'NR > 1 && $2 == b && $3 == s && $4 == z && $7 == r && $14 == 1 && $15 != "" { print $5, $15 }' "$csv" |
                    sort -n >"$work/t$i.dat"
                specs+=("t$i.dat:$r")
            done
            ms_plot_render "$work" "$d/plots/$label-threads.png" \
                "$label: bandwidth vs threads ($(ms_human_bytes "$maxsize") per array)" threads "MB/s" 0 "${specs[@]}" || true
        fi
        n=$(awk -F, -v b="$bench" -v s="$scen" -v t="$maxt" 'NR > 1 && $2 == b && $3 == s && $5 == t && $14 == 1 && !x[$4]++' "$csv" | wc -l)
        if [ "$n" -gt 1 ]; then
            specs=()
            local i=0
            for r in "${recs[@]}"; do
                i=$((i + 1))
                awk -F, -v b="$bench" -v s="$scen" -v t="$maxt" -v r="$r" \
                    'NR > 1 && $2 == b && $3 == s && $5 == t && $7 == r && $14 == 1 && $15 != "" { printf "%.6g %s\n", $4 / 1048576, $15 }' "$csv" |
                    sort -g >"$work/s$i.dat"
                specs+=("s$i.dat:$r")
            done
            ms_plot_render "$work" "$d/plots/$label-size.png" \
                "$label: bandwidth vs size ($maxt threads)" "MiB per array" "MB/s" 1 "${specs[@]}" || true
        fi
    done
    # latency curve from sweep cells
    local id b2 s2 _ f
    : >"$work/lat.dat"
    while IFS=$'\t' read -r id b2 s2 _; do
        [ "$s2" = sweep ] || continue
        f="$d/cells/$id.json"
        [ -f "$f" ] || continue
        ms_res_latency_points "$f" | awk -F '\t' '{ printf "%.6g %s\n", $1 / 1024, $2 }' >>"$work/lat.dat"
    done < <(ms_rundir_cells "$d")
    if [ -s "$work/lat.dat" ]; then
        sort -g -o "$work/lat.dat" "$work/lat.dat"
        ms_plot_render "$work" "$d/plots/latency.png" "random-read latency vs working set" \
            "KiB working set" "ns per access" 1 "lat.dat:randread" || true
    fi
}
