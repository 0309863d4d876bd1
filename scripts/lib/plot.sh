# shellcheck shell=bash
# plot: the PNG charts of a results directory (report --plots, --html),
# drawn by the analyser (memsuite-analyse plot --run: plots.py computes the
# series, draw.py draws them with matplotlib).  Bash only passes the
# directory; every number, axis and caption is the analyser's:
#   <bench>-threads.png, <bench>-size.png   headline metric against threads
#                         and array size, a panel per record, error bars
#                         min..max of the repetitions
#   loaded-ID.png, sweep-ID.png, c2c-ID.png, matrix-ID.png   a cell's curve
#                         or heatmap
#   latency.png           latency against working set (randread-sweep cells)

ms_use analysis

# ms_plot_available: 0 when the analyser can draw (python3 and matplotlib);
# else 1 with the reason on stdout ("plots unavailable: ...").
ms_plot_available() {
    local py
    py=$(ms_python 2>/dev/null) || { echo "plots unavailable: python3 is not installed"; return 1; }
    "$py" -c 'import matplotlib' >/dev/null 2>&1 && return 0
    echo "plots unavailable: matplotlib is not installed (Debian: python3-matplotlib)"
    return 1
}

# ms_plot_dir DIR SUMMARY_CSV [PLOTDIR]: every chart the data allows, into
# PLOTDIR (default DIR/plots); prints the PNG paths.  SUMMARY_CSV is
# unused (kept for the callers).  matplotlib missing: exit 4 with the
# reason; a PNG that cannot be written: exit 3.
ms_plot_dir() {
    local d="$1" pd="${3:-$1/plots}" why rc=0
    why=$(ms_plot_available) || ms_die "$MS_EX_UNBUILT" "$why"
    ms_analyse plot --run "$d" --outdir "$pd" || rc=$?
    case "$rc" in
        0) ;;
        4) ms_die "$MS_EX_UNBUILT" "plots unavailable: matplotlib is not installed (Debian: python3-matplotlib)" ;;
        2) ms_die "$MS_EX_USAGE" "cannot plot $d (the analyser said why above)" ;;
        *) ms_die "$MS_EX_ENV" "cannot write the plots into $pd (the analyser said why above)" ;;
    esac
}
