# shellcheck shell=bash
# plot: gnuplot PNGs of a results directory (report --plots, --html):
#   <bench>-threads.png   headline metric vs threads: a panel per record
#                         (kernel), a line per array size
#   <bench>-size.png      headline metric vs array size: a panel per
#                         record, a line per thread count
#   latency.png           latency vs working set (mencal:randread-sweep cells)
#   loaded-ID.png,        latency vs bandwidth, bandwidth vs working set
#   sweep-ID.png          (mencal loaded and sweep cells; plot-curves.sh)
# Every point is a cell's headline value in the unit the report's tables
# use (the tool's own: stream MB/s, mbw MiB/s, mencal GB/s or ns), with
# an error bar of +-1 CV over its repetitions (none below 2), and a ring
# around in-cache points (array < 4 x LLC).  Thread axes have a tick per
# thread count the run used, size axes one per size.
# gnuplot runs in a temp directory on generated file names only, so no
# user text reaches its script except sanitised titles.

ms_use rundir results plot-curves

ms_plot_safe() { printf '%s' "$1" | tr -cd 'A-Za-z0-9 :._()/+<>#%,-'; }

ms_plot_terminal() {     # ms_plot_terminal HEIGHT_PX
    local h="${1:-600}"
    if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
        echo "pngcairo size 960,$h noenhanced font ',10'"
    else
        echo "png size 960,$h noenhanced"
    fi
}

# ms_plot_matrix_gp WORK CSV BENCH SCEN AXIS LLC: writes WORK/plot.gp and
# its data files for one bench[:scenario] along AXIS (threads | size);
# returns 1 (nothing written) when no line of any panel has 2 points.
#   threads: x = threads, a line per size
#   size:    x = MiB per array (log 2), a line per thread count
ms_plot_matrix_gp() {
    local work="$1" csv="$2" bench="$3" scen="$4" axis="$5" llc="$6" label
    label="$bench"
    [ "$scen" != "-" ] && label="$bench:$scen"
    rm -f -- "$work"/*.dat "$work/plot.gp"
    awk -F, -v b="$bench" -v s="$scen" -v axis="$axis" -v llc="$llc" -v work="$work" \
        -v label="$(ms_plot_safe "$label")" -v term_png="$(ms_plot_terminal 0)" '
    function safe(t) { gsub(/[^A-Za-z0-9 :._()\/+<>#%,-]/, "", t); return t }
    function human(b,   u, i) {
        split("B KiB MiB GiB TiB", u, " "); i = 1
        while (b >= 1024 && i < 5) { b /= 1024; i++ }
        return (i == 1 ? sprintf("%d B", b) : sprintf("%.1f %s", b, u[i]))
    }
    function plural(n, word) { return n " " word (n == 1 ? "" : "s") }
    function sortnum(a, n,   i, j, x) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] + 0 < a[j - 1] + 0; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
    }
    # Numbers only reach the script and the data files (sizes and thread
    # counts become tick labels in plot.gp): a row with anything else is
    # left out (ms_rundir_check and ms_res_state refuse such files first).
    function isnum(x) { return x ~ /^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$/ }
    NR == 1 || $2 != b || $3 != s || $14 != 1 || $10 == "NA" || $10 == "" { next }
    $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ || !isnum($10) || ($12 != "" && !isnum($12)) { next }
    {
        if (!($7 in seenrec)) { seenrec[$7] = 1; recs[++nrec] = $7; unit[$7] = $9; metric[$7] = $8 }
        if (!($4 in seensz)) { seensz[$4] = 1; sz[++nsz] = $4 }
        if (!($5 in seent)) { seent[$5] = 1; th[++nth] = $5 }
        v[$7, $4, $5] = $10
        e[$7, $4, $5] = ($12 == "" ? 0 : $10 * $12)
    }
    END {
        sortnum(sz, nsz); sortnum(th, nth)
        # lines: one per size (threads axis) or per thread count (size axis)
        if (axis == "threads") { nline = nsz; npt = nth } else { nline = nth; npt = nsz }
        if (npt < 2) exit 1
        cols = (nrec > 1) ? 2 : 1; rows = int((nrec + cols - 1) / cols)
        gp = work "/plot.gp"
        h = 130 + 330 * rows
        sub(/size 960,0/, "size 960," h, term_png)
        xname = (s == "concurrent") ? "processes" : "threads"
        printf "set terminal %s\nset output\n", term_png > gp
        if (axis == "threads")
            printf "set multiplot layout %d,%d title \"%s: headline metric vs %s, a line per array size (error bars: +-1 CV over the repetitions)\"\n", rows, cols, label, xname > gp
        else
            printf "set multiplot layout %d,%d title \"%s: headline metric vs array size, a line per %s count (error bars: +-1 CV over the repetitions)\"\n", rows, cols, label, (s == "concurrent" ? "process" : "thread") > gp
        printf "set grid\nset key inside top center horizontal opaque samplen 2\nset yrange [0:*]\nset offsets 0, 0, graph 0.3, 0\nset bars small\n" > gp
        tics = ""
        if (axis == "threads") {
            if (th[nth] / th[1] >= 8) {
                printf "set logscale x 2\nset xrange [%.6g:%.6g]\n", th[1] / 1.25, th[nth] * 1.25 > gp
            } else {
                pad = (th[nth] - th[1]) * 0.06
                printf "set xrange [%.6g:%.6g]\n", th[1] - pad, th[nth] + pad > gp
            }
            for (i = 1; i <= nth; i++) tics = tics (i > 1 ? ", " : "") "\"" th[i] "\" " th[i]
            printf "set xlabel \"%s\"\n", xname > gp
        } else {
            printf "set logscale x 2\nset xrange [%.6g:%.6g]\n", sz[1] / 1048576 / 1.25, sz[nsz] / 1048576 * 1.25 > gp
            for (i = 1; i <= nsz; i++) tics = tics (i > 1 ? ", " : "") "\"" human(sz[i]) "\" " sprintf("%.6g", sz[i] / 1048576)
            printf "set xlabel \"array size (MiB per array, log scale)\"\n" > gp
        }
        printf "set xtics (%s)\n", tics > gp
        lines = 0
        for (r = 1; r <= nrec; r++) {
            rec = recs[r]
            printf "set title \"%s\"\nset ylabel \"%s (%s)\"\n", safe(rec), safe(metric[rec]), safe(unit[rec]) > gp
            cmd = ""; ic = work "/ic" r ".dat"; nic = 0
            for (l = 1; l <= nline; l++) {
                f = "r" r "l" l ".dat"; n = 0
                for (p = 1; p <= npt; p++) {
                    if (axis == "threads") { zs = sz[l]; zt = th[p]; x = zt } else { zs = sz[p]; zt = th[l]; x = sprintf("%.6g", zs / 1048576) }
                    if (!((rec, zs, zt) in v)) continue
                    printf "%s %s %s\n", x, v[rec, zs, zt], e[rec, zs, zt] > (work "/" f)
                    n++
                    if (llc > 0 && zs + 0 < 4 * llc) { printf "%s %s\n", x, v[rec, zs, zt] > ic; nic++ }
                }
                if (n == 0) continue
                close(work "/" f)
                if (n > 1) lines++
                if (axis == "threads") t = human(sz[l]); else t = plural(th[l], (s == "concurrent" ? "process" : "thread"))
                if (t ~ /processs$/) sub(/processs$/, "processes", t)
                cmd = cmd (cmd == "" ? "" : ", ") "\"" f "\" using 1:2:3 with yerrorlines lw 2 pt 7 title \"" t "\""
            }
            if (nic > 0) {
                close(ic)
                cmd = cmd ", \"ic" r ".dat\" using 1:2 with points pt 6 ps 2.6 lw 1.5 lc rgb \"#000000\" title \"in cache (< 4x LLC)\""
            }
            if (cmd == "") printf "set label 1 \"no values\" at graph 0.5, graph 0.5 center\nplot 0 notitle\nunset label 1\n" > gp
            else printf "plot %s\n", cmd > gp
        }
        printf "unset multiplot\n" > gp
        close(gp)
        exit(lines > 0 ? 0 : 1)
    }' "$csv"
}

# ms_plot_gnuplot WORK: the PNG of WORK/plot.gp on stdout.
ms_plot_gnuplot() {
    (cd -- "$1" && gnuplot plot.gp) 2>"$1/gnuplot.err"
}

# ms_plot_write WORK OUT.png: renders WORK/plot.gp into OUT (atomically);
# prints OUT, or warns and returns 1.
ms_plot_write() {
    if ! ms_out_write "$2" ms_plot_gnuplot "$1"; then
        ms_warn "gnuplot failed for $2: ${MS_OUT_ERR:-$(head -n 1 "$1/gnuplot.err")}"
        return 1
    fi
    printf '%s\n' "$2"
}

# ms_plot_latency_gp WORK: plot.gp for WORK/lat.dat ("KiB ns" lines)
ms_plot_latency_gp() {
    {
        printf 'set terminal %s\n' "$(ms_plot_terminal 600)"
        printf 'set output\nset title "random-read latency vs working set (mencal:randread-sweep)"\n'
        printf 'set xlabel "working set (KiB, log scale)"\nset ylabel "latency (ns per access)"\n'
        printf 'set grid\nset key outside right top\nset yrange [0:*]\nset logscale x 2\n'
        printf 'plot "lat.dat" using 1:2 with linespoints lw 2 pt 7 title "randread"\n'
    } >"$1/plot.gp"
}

# ms_plot_dir DIR SUMMARY_CSV [PLOTDIR]: every plot the data allows, into
# PLOTDIR (default DIR/plots); prints the PNG paths.
ms_plot_dir() {
    local d="$1" csv="$2" pd="${3:-$1/plots}" work g bench scen label llc axis
    ms_require_cmd gnuplot "install gnuplot-nox for --plots and --html"
    mkdir -p -- "$pd" 2>/dev/null || ms_die "$MS_EX_ENV" "cannot create $pd"
    work=$(ms_mktemp -d)
    llc=$(jq -r '.config.llc_bytes // 0' "$d/run.json")
    local -a groups
    mapfile -t groups < <(awk -F, 'NR > 1 && $14 == 1 && $10 != "NA" && !s[$2 "," $3]++ { print $2 "," $3 }' "$csv")
    for g in "${groups[@]}"; do
        bench="${g%%,*}" scen="${g#*,}"
        label="$bench"
        [ "$scen" != "-" ] && label="$bench-$scen"
        for axis in threads size; do
            ms_plot_matrix_gp "$work" "$csv" "$bench" "$scen" "$axis" "$llc" || continue
            ms_plot_write "$work" "$pd/$label-$axis.png" || true
        done
    done
    # latency curve from randread-sweep cells (and "sweep" cells of
    # results directories made before the mountain took that name; a
    # mountain cell has no latency points)
    local id b2 s2 _ f
    : >"$work/lat.dat"
    while IFS=$'\t' read -r id b2 s2 _; do
        case "$s2" in randread-sweep|sweep) ;; *) continue ;; esac
        f="$d/cells/$id.json"
        ms_rundir_cell_done "$d" "$id" "$b2" "$s2" || continue
        ms_res_latency_points "$f" | awk -F '\t' '{ printf "%.6g %s\n", $1 / 1024, $2 }' >>"$work/lat.dat"
    done < <(ms_rundir_cells "$d")
    if [ -s "$work/lat.dat" ]; then
        sort -g -o "$work/lat.dat" "$work/lat.dat"
        ms_plot_latency_gp "$work"
        ms_plot_write "$work" "$pd/latency.png" || true
    fi
    # mencal loaded and sweep curves: one chart per cell holding one
    local cw
    while IFS=$'\t' read -r id b2 s2 _; do
        f="$d/cells/$id.json"
        ms_rundir_cell_done "$d" "$id" "$b2" "$s2" || continue
        cw=$(ms_mktemp -d)
        ms_curves_gp "$f" "$cw" || continue
        ms_plot_write "$cw" "$pd/$(ms_curves_kind "$f")-$id.png" || true
    done < <(ms_rundir_cells "$d")
}
