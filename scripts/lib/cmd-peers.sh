# Summary: memsuite beside its peers in one alternating run: one table of ratios (and JSON)
# Usage: memsuite peers [--stream510 PATH] [--multichase PATH] [--likwid-bench PATH] [--mbw PATH] [--sysbench PATH] [--skip LIST] [--rounds N] [--size SIZE] [--threads N] [--json FILE]
#        memsuite peers all|NAME... [-- ARGS...]
#
# Without a NAME: the peer report.  Every comparison runs once per round,
# ours and the peer back to back (odd rounds ours first, even rounds the
# peer first), and the table gives, per row, the medians over the rounds
# and the ratio ours / peer: the median over rounds of the ratio measured
# within one round (pairing cancels the drift of a shared machine).  It
# is headed by the CPU model, microcode, ISA flags, LLC and memory.
#
#   --stream510 PATH     STREAM 5.10 built from McCalpin's stream.c outside
#                        this tree: stream (standard mode, its array size
#                        and NTIMES read from PATH's output) vs PATH, Copy,
#                        Scale, Add, Triad Best Rate MB/s
#   --multichase PATH    google/multichase built outside this tree: mencal
#                        randread vs multichase, one thread, 1 GiB, 4 KiB
#                        pages, at TLB locality 8, 64 and 256 pages (-T
#                        32k/256k/1m), full random (-T 1g), and 32 KiB
#   --likwid-bench PATH  likwid-bench (default: the one on PATH): seqread vs
#                        its best load*/sum* kernel, stream Triad vs its
#                        best stream*, stream --nt-stores Triad vs its best
#                        stream_mem* (the variants the CPU has)
#   --mbw PATH           Debian's mbw (default /usr/bin/mbw, else PATH):
#                        our mbw vs it, MEMCPY, DUMB and MCBLOCK averages
#   --sysbench PATH      sysbench (default: the one on PATH): seqread vs
#                        sysbench memory read (sequential)
#   --skip LIST          comma-separated groups not to run: stream510,
#                        multichase, likwid, mbw, sysbench, control
#   --rounds N           rounds (default 3)
#   --size SIZE          seqread's and sysbench's working set, mbw's array
#                        (default 1GiB; mbw gets a quarter)
#   --threads N          threads of the bandwidth rows (default: one per
#                        physical core, as mencal)
#   --json FILE          also write the table as JSON (memsuite/peers/1),
#                        atomically
#
# A row whose median ratio is known less precisely (two standard errors,
# from its per-round ratios, 3 rounds or more) than its target's tolerance
# is "unsettled": luck can meet or miss the target; more --rounds can
# settle it.  Every round also runs A/A controls, our seqread twice in a
# row (when a bandwidth row runs) and randread at TLB locality 64 twice in
# a row (when the multichase rows run): how far the machine alone moves a
# pair.  An unsettled row names the control of its kind.
#
# A "peer" that is one of our own binaries (the same file, or a binary
# carrying memsuite's "(memsuite)" version mark) is refused as a
# self-comparison; a peer that is not given, not installed or fails is
# listed under "not run" with the reason, and the others still run.  A
# figure that does not parse as a positive number is not used.
#
# With NAMEs (or all): runs the scripts peers-NAME.sh (peers-stream.sh,
# peers-mbw.sh, peers-mencal.sh, peers-curves.sh) as before, each under a
# "== peers-NAME.sh ==" heading; ARGS after "--" go to every script.  The
# scripts are those next to memsuite in a source tree (scripts/), else the
# installed ones (PREFIX/share/memsuite/peers); MEMSUITE_PEERS_DIR
# overrides the directory.
#
# Exit: 0 the report printed (a ratio off target is printed, not fatal),
# or every script succeeded; 1 a script failed, or no comparison could
# run; 2 usage; 3 no script to run, or our tools are missing.

ms_use outfile peers analysis envdoc

# The directory holding peers-*.sh: MEMSUITE_PEERS_DIR, else scripts/ of
# a source tree, else the installed PREFIX/share/memsuite/peers.
ms_peers_dir() {
    local f
    if [ -n "${MEMSUITE_PEERS_DIR:-}" ]; then
        printf '%s\n' "$MEMSUITE_PEERS_DIR"
        return
    fi
    for f in "$MS_SCRIPTS_DIR"/peers-*.sh; do
        [ -f "$f" ] && { printf '%s\n' "$MS_SCRIPTS_DIR"; return; }
    done
    if [ -d "$MS_LIB/../peers" ]; then
        (cd -- "$MS_LIB/../peers" && pwd)
    else
        printf '%s\n' "$MS_SCRIPTS_DIR"
    fi
}

# The scripts: peers-NAME.sh for each NAME (all: every one).
ms_peers_scripts() {
    local dir f n rc=0 ran=0 status
    local -a files=() pass=() want=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --) shift; pass=("$@"); break ;;
            *) want+=("$1") ;;
        esac
        shift
    done
    dir=$(ms_peers_dir)
    if [ "${want[0]}" != all ]; then
        for n in "${want[@]}"; do
            f="$dir/peers-$n.sh"
            [ -f "$f" ] || ms_usage_error "no peer script $f"
            files+=("$f")
        done
    else
        for f in "$dir"/peers-*.sh; do
            [ -f "$f" ] && files+=("$f")
        done
    fi
    [ "${#files[@]}" -gt 0 ] ||
        ms_die "$MS_EX_ENV" "no peer scripts (peers-*.sh) in $dir"
    for f in "${files[@]}"; do
        printf '== %s ==\n' "${f##*/}"
        status=0
        bash "$f" "${pass[@]}" </dev/null || status=$?
        ran=$((ran + 1))
        if [ "$status" -ne 0 ]; then
            printf '== %s: exit %s ==\n' "${f##*/}" "$status"
            rc=1
        fi
        echo
    done
    ms_note "$ran peer script(s) run$([ "$rc" -ne 0 ] && echo ', some failed')"
    return "$rc"
}

# ---- the report -------------------------------------------------------------
# The rows: id|group|ours|peer|unit|better|target (lo-hi on the ratio, or -).
MS_PR_ROWS=(
    "stream_copy|stream510|stream (standard) Copy|STREAM 5.10 Copy|MB/s|higher|0.97-1.03"
    "stream_scale|stream510|stream (standard) Scale|STREAM 5.10 Scale|MB/s|higher|0.97-1.03"
    "stream_add|stream510|stream (standard) Add|STREAM 5.10 Add|MB/s|higher|0.97-1.03"
    "stream_triad|stream510|stream (standard) Triad|STREAM 5.10 Triad|MB/s|higher|0.97-1.03"
    "latency_tlb8|multichase|randread best --tlb-locality 8|multichase -m 1g -T 32k (best)|ns|lower|0.97-1.03"
    "latency_tlb64|multichase|randread best --tlb-locality 64|multichase -m 1g -T 256k (best)|ns|lower|0.97-1.03"
    "latency_tlb256|multichase|randread best --tlb-locality 256|multichase -m 1g -T 1m (best)|ns|lower|0.97-1.03"
    "latency_full|multichase|randread best --tlb-locality 0|multichase -m 1g -T 1g (best)|ns|lower|0.97-1.03"
    "latency_32k|multichase|randread best --size 32KiB|multichase -m 32k (best)|ns|lower|0.97-1.03"
    "seqread_load|likwid|mencal seqread|likwid-bench best load*/sum*|GB/s|higher|0.97-"
    "triad|likwid|stream Triad (tuned)|likwid-bench best stream*|MB/s|higher|-"
    "triad_nt|likwid|stream --nt-stores Triad|likwid-bench best stream_mem*|MB/s|higher|1.02-"
    "mbw_memcpy|mbw|mbw MEMCPY|Debian mbw MEMCPY|MiB/s|higher|0.97-1.03"
    "mbw_dumb|mbw|mbw DUMB|Debian mbw DUMB|MiB/s|higher|0.97-1.03"
    "mbw_mcblock|mbw|mbw MCBLOCK|Debian mbw MCBLOCK (1.2.2 re-reads one cached block)|MiB/s|higher|-"
    "seqread_sysbench|sysbench|mencal seqread|sysbench memory read seq|GB/s|higher|-"
    "control_bandwidth|control|mencal seqread, run A|the same, run B (A/A control)|GB/s|higher|-"
    "control_latency|control|randread best --tlb-locality 64, run A|the same, run B (A/A control)|ns|lower|-"
)
MS_PR_GROUPS="stream510 multichase likwid mbw sysbench control"

# ms_pr_put ROW SIDE VALUE [DETAIL]: one figure of this round; a value
# that is not a positive number is not used (its reason is kept).
ms_pr_put() {
    if ms_peers_positive "$3"; then
        printf '%s\t%s\t%s\t%s\t%s\n' "$MS_PR_ROUND" "$1" "$2" "$3" "${4:-}" >>"$MS_PR_DATA"
    else
        printf '%s\t%s\n' "$1" "$2: no figure (read '${3:0:60}')" >>"$MS_PR_BAD"
    fi
}
# ms_pr_skip GROUP REASON: the group does not run.
ms_pr_skip() {
    MS_PR_NOTRUN+=("$1|$2")
    MS_PR_ON=${MS_PR_ON//" $1 "/ }
}
ms_pr_on() { [[ "$MS_PR_ON" == *" $1 "* ]]; }

# ms_pr_peer VAR GROUP PATH-OR-EMPTY DEFAULT-NAME HOW: resolves a peer to
# an executable in VAR (0), or skips its group with the reason (1).
ms_pr_peer() {
    local var=$1 group=$2 path=$3 name=$4 how=$5 why
    if [ -z "$path" ] && [ -n "$name" ]; then
        path=$(command -v "$name" 2>/dev/null) || path=""
    fi
    if [ -z "$path" ]; then
        ms_pr_skip "$group" "$how"
    elif [ ! -f "$path" ] || [ ! -x "$path" ]; then
        ms_pr_skip "$group" "$path is not an executable file"
    elif why=$(ms_peers_is_ours "$path" "$MS_PR_BIN"); then
        ms_pr_skip "$group" "self-comparison refused: $why"
    else
        printf -v "$var" '%s' "$path"
        return 0
    fi
    return 1
}

# -- each group: ours and the peer, one figure per row and round --------------
ms_pr_omp() {   # the OpenMP environment of every bandwidth run
    OMP_NUM_THREADS=$MS_PR_THREADS OMP_PROC_BIND=${OMP_PROC_BIND:-close} \
        OMP_PLACES=${OMP_PLACES:-cores} "$@"
}
ms_pr_stream_text() {   # SIDE: Copy..Triad Best Rate from STREAM text on stdin
    local side=$1 k v
    while read -r k v; do
        ms_pr_put "stream_$k" "$side" "$v"
    done < <(awk '/^(Copy|Scale|Add|Triad):/ { sub(":", "", $1); print tolower($1), $2 }')
}
ms_pr_stream510_ours() {
    ms_pr_omp "$MS_PR_STREAM" -s "$MS_PR_REF_N" -n "$MS_PR_REF_NT" 2>/dev/null | ms_pr_stream_text ours
}
ms_pr_stream510_peer() { ms_pr_omp "$MS_PR_REF_STREAM" 2>/dev/null | ms_pr_stream_text peer; }

ms_pr_mc_points() {   # row tlb-pages multichase-args
    printf '%s\n' "latency_tlb8 8 -m 1g -T 32k" "latency_tlb64 64 -m 1g -T 256k" \
        "latency_tlb256 256 -m 1g -T 1m" "latency_full 0 -m 1g -T 1g" "latency_32k 32K -m 32k"
}
ms_pr_randread() {   # ROW SIDE POINT: randread at TLB locality POINT (32K: 32 KiB)
    local f="$MS_PR_TMP/rr.json"
    local -a where
    if [ "$3" = 32K ]; then where=(--size 32KiB --allow-cache); else where=(--size 1GiB --tlb-locality "$3"); fi
    if "$MS_PR_MENCAL" run randread "${where[@]}" --threads 1 --hugepages never -q \
            --format json -O "$f" 2>/dev/null; then
        # multichase prints the best of its samples: the same statistic
        # of ours is the best repetition (the median rides along on our
        # side; a peer-side detail would name a variant)
        ms_pr_put "$1" "$2" "$(jq -r '.records[0].metrics.latency | .stats.min // .value' "$f")" \
            "$([ "$2" = ours ] && echo "median $(jq -r '.records[0].metrics.latency.value' "$f")")"
    else
        ms_pr_put "$1" "$2" "failed"
    fi
}
ms_pr_multichase_ours() {
    local row p rest
    while read -r row p rest; do
        ms_pr_randread "$row" ours "$p"
    done < <(ms_pr_mc_points)
}
ms_pr_multichase_peer() {
    local row p rest
    local -a pin=()
    command -v taskset >/dev/null && pin=(taskset -c "$MS_PR_CPU0")
    while read -r row p rest; do
        # shellcheck disable=SC2086 # rest is the argument list
        ms_pr_put "$row" peer "$("${pin[@]}" "$MS_PR_REF_MC" $rest 2>/dev/null | tail -n 1 | tr -d ' ')"
    done < <(ms_pr_mc_points)
}

ms_pr_seqread() {   # GB/s of mencal seqread at the report's size and threads
    local f="$MS_PR_TMP/sq.json"
    "$MS_PR_MENCAL" run seqread --size "$MS_PR_BYTES" --threads "$MS_PR_THREADS" -q \
        --format json -O "$f" 2>/dev/null && jq -r '.records[0].metrics.bandwidth.value' "$f"
}
ms_pr_stream_triad() {   # MB/s of our stream Triad, ARGS extra (e.g. --nt-stores)
    local f="$MS_PR_TMP/st.json"
    ms_pr_omp "$MS_PR_STREAM" -s "$MS_PR_ELEMS" -t "$MS_PR_THREADS" --kernels triad "$@" \
        --allow-small -q --format json -O "$f" 2>/dev/null &&
        jq -r '.records[] | select(.name == "Triad") | .metrics.best_rate_mbps.value' "$f"
}
ms_pr_likwid_ours() {
    ms_pr_put seqread_load ours "$(ms_pr_seqread || echo failed)"
    ms_pr_put triad ours "$(ms_pr_stream_triad || echo failed)"
    ms_pr_put triad_nt ours "$(ms_pr_stream_triad --nt-stores || echo failed)"
}
# Every likwid-bench variant of one family, each as a peer figure of ROW
# with the variant as its detail; the analyser compares with the variant
# of the best median over the rounds.  (Taking each round's best of up to
# six noisy figures against our one figure read seqread at 0.75 of likwid
# on this VM where pairs with one variant read 0.93 to 1.11.)
ms_pr_likwid_variants() {   # row family-regex kilobytes divisor
    local k out mbs any=""
    for k in $MS_PR_LIKWID_KERNELS; do
        [[ "$k" =~ ^($2)$ ]] || continue
        out=$("$MS_PR_LIKWID" -t "$k" -W "N:${3}kB:$MS_PR_THREADS" -s 0.5 2>&1) || continue
        mbs=$(awk -F'\t+' '/^MByte\/s:/ { print $2; exit }' <<<"$out")
        ms_peers_positive "$mbs" || continue
        ms_pr_put "$1" peer "$(awk -v v="$mbs" -v d="$4" 'BEGIN { print v / d }')" "$k"
        any=1
    done
    [ -n "$any" ] || ms_pr_put "$1" peer "none: no variant of $2 gave a figure"
}
ms_pr_likwid_peer() {
    ms_pr_likwid_variants seqread_load 'load(_sse|_avx|_avx512)?|sum(_sse|_avx|_avx512)?' \
        $((MS_PR_BYTES / 1000)) 1000
    ms_pr_likwid_variants triad 'stream(_sse|_avx|_avx512)?' $((3 * MS_PR_ARRAY / 1000)) 1
    ms_pr_likwid_variants triad_nt 'stream_mem(_sse|_avx|_avx512)?' $((3 * MS_PR_ARRAY / 1000)) 1
}

ms_pr_mbw_avg() {   # SIDE BINARY [SWAPPED]: the AVG line of each method
    local side=$1 m v note
    while read -r m v; do
        # Debian's 1.2.2 prints its memcpy test as DUMB and its element
        # loop as MEMCPY: each is compared with the method it really is
        note=""
        if [ "${3:-}" = swapped ]; then
            case "$m" in
                memcpy) m=dumb note="1.2.2 labels swapped" ;;
                dumb) m=memcpy note="1.2.2 labels swapped" ;;
            esac
        fi
        ms_pr_put "mbw_$m" "$side" "$v" "$note"
    done < <("$2" -q -n 10 "$MS_PR_MBW_MIB" 2>/dev/null |
             awk -F'\t' '$1 == "AVG" { m = $2; sub("Method: ", "", m); v = $5; sub("Copy: ", "", v)
                                       sub(" MiB/s", "", v); print tolower(m), v }')
}
ms_pr_mbw_ours() { ms_pr_mbw_avg ours "$MS_PR_MBW"; }
ms_pr_mbw_peer() { ms_pr_mbw_avg peer "$MS_PR_REF_MBW" "$MS_PR_MBW_LABELS"; }

# ms_pr_mbw_labels PATH: "swapped" when PATH is Debian's mbw 1.2.x, whose
# MEMCPY and DUMB labels are swapped (fixed upstream in 1.3), else
# "as-labelled".  MEMSUITE_PEERS_MBW_LABELS=swapped|as-labelled overrides.
ms_pr_mbw_labels() {
    local pkg ver
    case "${MEMSUITE_PEERS_MBW_LABELS:-}" in
        swapped|as-labelled) echo "$MEMSUITE_PEERS_MBW_LABELS"; return ;;
    esac
    pkg=$(dpkg-query -S "$(readlink -f "$1")" 2>/dev/null | cut -d: -f1) || pkg=""
    ver=$([ -n "$pkg" ] && dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null) || ver=""
    case "$pkg:$ver" in mbw:1.2.*) echo swapped ;; *) echo as-labelled ;; esac
}

ms_pr_sysbench_ours() { ms_pr_put seqread_sysbench ours "$(ms_pr_seqread || echo failed)"; }
ms_pr_sysbench_peer() {
    # the block a power of two (sysbench refuses any other), one per thread
    local block out mibs
    block=$(ms_peers_pow2_floor $((MS_PR_BYTES / MS_PR_THREADS)))
    out=$("$MS_PR_REF_SB" memory --threads="$MS_PR_THREADS" --memory-scope=local \
          --memory-block-size="$block" --memory-total-size=$((block * MS_PR_THREADS * 10)) \
          --memory-oper=read --memory-access-mode=seq run 2>&1) || out=""
    mibs=$(sed -n 's/.*MiB transferred (\([0-9.]*\) MiB\/sec).*/\1/p' <<<"$out")
    ms_pr_put seqread_sysbench peer "$(awk -v m="$mibs" 'BEGIN { if (m > 0) print m * 1048576 / 1e9; else print "none" }')"
}

# The A/A controls: the same run of ours twice, back to back, so each pair
# shows how far the machine alone moves a figure between two runs.  The
# two runs of a pair are adjacent, so the group has one function for both.
ms_pr_control_pairs() {
    if ms_pr_on stream510 || ms_pr_on likwid || ms_pr_on mbw || ms_pr_on sysbench; then
        ms_pr_put control_bandwidth ours "$(ms_pr_seqread || echo failed)"
        ms_pr_put control_bandwidth peer "$(ms_pr_seqread || echo failed)"
    fi
    if ms_pr_on multichase; then
        ms_pr_randread control_latency ours 64
        ms_pr_randread control_latency peer 64
    fi
}

# -- the machine --------------------------------------------------------------
ms_pr_machine() {   # -> the probe result and host facts peers.py names the machine from
    "$MS_PR_MENCAL" run seqread --size 64KiB --allow-cache --reps 1 --threads 1 -q \
        --format json -O "$MS_PR_TMP/probe.json" 2>/dev/null || echo '{}' >"$MS_PR_TMP/probe.json"
    ms_facts --json --only host >"$MS_PR_TMP/host.json" 2>/dev/null || echo '{}' >"$MS_PR_TMP/host.json"
}

# -- the summary: rows x rounds -> JSON, then text (the analyser) -------------
ms_pr_json() {
    printf '%s\n' "${MS_PR_ROWS[@]}" >"$MS_PR_TMP/rows"
    printf '%s\n' "${MS_PR_NOTRUN[@]}" >"$MS_PR_TMP/notrun"
    ms_analyse peers json --rows "$MS_PR_TMP/rows" --data "$MS_PR_DATA" --bad "$MS_PR_BAD" \
        --notrun "$MS_PR_TMP/notrun" --probe "$MS_PR_TMP/probe.json" --facts "$MS_PR_TMP/host.json" --rounds "$MS_PR_ROUNDS" \
        --threads "$MS_PR_THREADS" --bytes "$MS_PR_BYTES" --date "$(ms_now_utc)"
}
ms_pr_text() { ms_analyse peers text; }   # the table from the JSON on stdin

ms_peers_report() {
    local rounds=3 size=1GiB threads="" json="" skip="" g r plan
    local o_stream="" o_mc="" o_likwid="" o_mbw="" o_sb=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --stream510) ms_need_arg "$@"; o_stream=$2; shift ;;
            --multichase) ms_need_arg "$@"; o_mc=$2; shift ;;
            --likwid-bench) ms_need_arg "$@"; o_likwid=$2; shift ;;
            --mbw) ms_need_arg "$@"; o_mbw=$2; shift ;;
            --sysbench) ms_need_arg "$@"; o_sb=$2; shift ;;
            --skip) ms_need_arg "$@"; skip=$2; shift ;;
            --rounds) ms_need_arg "$@"; rounds=$2; shift ;;
            --size) ms_need_arg "$@"; size=$2; shift ;;
            --threads) ms_need_arg "$@"; threads=$2; shift ;;
            --json) ms_need_arg "$@"; json=$2; shift ;;
            -h|--help) ms_cmd_help ;;
            *) ms_unknown_option "$1" ;;
        esac
        shift
    done
    [[ "$rounds" =~ ^[1-9][0-9]{0,2}$ ]] ||
        ms_usage_error "--rounds '$rounds': expected an integer from 1 to 999"
    [ -z "$threads" ] || [[ "$threads" =~ ^[1-9][0-9]{0,3}$ ]] ||
        ms_usage_error "--threads '$threads': expected a positive integer"
    for g in ${skip//,/ }; do
        [[ " $MS_PR_GROUPS " == *" $g "* ]] ||
            ms_usage_error "--skip '$g': expected a comma-separated list of ${MS_PR_GROUPS// /, }"
    done
    [ -z "$json" ] || ms_out_check "$json" || ms_usage_error "--json: cannot write $MS_OUT_ERR"
    command -v jq >/dev/null || ms_die "$MS_EX_ENV" "jq is missing; install it (make deps)"

    MS_PR_MENCAL=$(ms_tool_require mencal)
    MS_PR_STREAM=$(ms_tool_require stream)
    MS_PR_MBW=$(ms_tool_require mbw)
    MS_PR_BIN=$(dirname -- "$MS_PR_MENCAL")
    ms_tmpdir
    MS_PR_TMP=$(ms_mktemp -d)
    MS_PR_DATA="$MS_PR_TMP/data.tsv" MS_PR_BAD="$MS_PR_TMP/bad.tsv"
    : >"$MS_PR_DATA"
    : >"$MS_PR_BAD"
    MS_PR_ROUNDS=$rounds
    MS_PR_NOTRUN=()
    MS_PR_ON=" $MS_PR_GROUPS "
    MS_PR_REF_STREAM="" MS_PR_REF_MC="" MS_PR_LIKWID="" MS_PR_REF_MBW="" MS_PR_REF_SB="" MS_PR_MBW_LABELS=as-labelled
    MS_PR_LIKWID_KERNELS="" MS_PR_ELEMS="" MS_PR_ARRAY="" MS_PR_REF_N="" MS_PR_REF_NT=""
    for g in ${skip//,/ }; do ms_pr_skip "$g" "skipped (--skip)"; done

    # the plan through mencal itself: bytes, threads, the first CPU
    local -a pa=(--size "$size")
    [ -n "$threads" ] && pa+=(--threads "$threads")
    plan=$("$MS_PR_MENCAL" run seqread --dry-run "${pa[@]}" 2>&1) ||
        ms_usage_error "mencal refused the plan: ${plan##*$'\n'}"
    MS_PR_BYTES=$(sed -n 's/^size: \([0-9]*\) bytes.*/\1/p' <<<"$plan")
    MS_PR_THREADS=$(sed -n 's/^threads: //p' <<<"$plan")
    MS_PR_CPU0=$(sed -n 's/^cpus: //p' <<<"$plan" | awk '{ print $1 }')
    if ! ms_is_uint "$MS_PR_BYTES" || ! ms_is_uint "$MS_PR_THREADS"; then
        ms_die "$MS_EX_ENV" "mencal --dry-run printed no size or threads: ${plan:0:200}"
    fi
    MS_PR_MBW_MIB=$((MS_PR_BYTES / 4 / 1048576 > 0 ? MS_PR_BYTES / 4 / 1048576 : 1))

    # the peers: each resolved once, or its group skipped with the reason
    if ms_pr_on stream510; then
        if ms_pr_peer MS_PR_REF_STREAM stream510 "$o_stream" "" \
                "not given: pass --stream510 PATH (STREAM 5.10 built from stream.c outside this tree)"; then
            local probe
            probe=$(ms_pr_omp "$MS_PR_REF_STREAM" 2>&1) || probe=""
            MS_PR_REF_N=$(sed -n 's/^Array size = \([0-9]*\) (elements).*/\1/p' <<<"$probe")
            MS_PR_REF_NT=$(sed -n 's/^Each kernel will be executed \([0-9]*\) times\..*/\1/p' <<<"$probe")
            if ! ms_is_uint "$MS_PR_REF_N" || ! ms_is_uint "$MS_PR_REF_NT"; then
                ms_pr_skip stream510 "$MS_PR_REF_STREAM printed no 'Array size = N' or 'executed N times' line: is it STREAM 5.10?"
            fi
        fi
    fi
    if ms_pr_on multichase; then
        ms_pr_peer MS_PR_REF_MC multichase "$o_mc" "" \
            "not given: pass --multichase PATH (google/multichase built outside this tree)" || true
    fi
    if ms_pr_on likwid && ms_pr_peer MS_PR_LIKWID likwid "$o_likwid" likwid-bench \
            "likwid-bench is not installed (Debian: apt-get install likwid)"; then
        local out
        if ! out=$("$MS_PR_LIKWID" -t load -W "N:1MB:1" -s 0.1 2>&1); then
            ms_pr_skip likwid "likwid-bench cannot run here: $(grep -v '^[-=]*$' <<<"$out" | tail -n 2 | tr '\n' ' ')"
        else
            # the variants it has, less those the CPU lacks
            local flags drop='^$'
            flags=" $(ms_facts --json --only host | jq -r '.facts[] | select(.key == "cpu_flags") | .value') "
            [[ "$flags" == *" avx512f "* ]] || drop='_avx512$'
            [[ "$flags" == *" avx "* ]] || drop='_avx(512)?$'
            MS_PR_LIKWID_KERNELS=$("$MS_PR_LIKWID" -a 2>/dev/null | awk '{ print $1 }' |
                grep -xE '(load|sum|stream|stream_mem)(_sse|_avx|_avx512)?' | grep -vE "$drop" |
                paste -sd' ' -)
        fi
    fi
    if ms_pr_on likwid || ms_pr_on stream510; then
        local sp="$MS_PR_TMP/probe.json"
        if "$MS_PR_STREAM" -s auto -n 2 -t "$MS_PR_THREADS" --kernels copy --allow-small \
                --format json -q -O "$sp" 2>/dev/null; then
            MS_PR_ELEMS=$(jq -r .config.array_size "$sp")
            MS_PR_ARRAY=$(jq -r .config.array_bytes "$sp")
        else
            ms_pr_on likwid && ms_pr_skip likwid "our stream -s auto failed"
        fi
    fi
    if ms_pr_on mbw; then
        [ -n "$o_mbw" ] || { [ -x /usr/bin/mbw ] && o_mbw=/usr/bin/mbw; }
        ms_pr_peer MS_PR_REF_MBW mbw "$o_mbw" mbw "Debian's mbw is not installed (apt-get install mbw)" &&
            MS_PR_MBW_LABELS=$(ms_pr_mbw_labels "$MS_PR_REF_MBW")
    fi
    if ms_pr_on sysbench; then
        ms_pr_peer MS_PR_REF_SB sysbench "$o_sb" sysbench \
            "sysbench is not installed (Debian: apt-get install sysbench)" || true
    fi

    ms_pr_machine
    local -a active
    read -r -a active <<<"$MS_PR_ON"
    ms_note "${active[*]:-no group}; $rounds rounds, alternating; $MS_PR_THREADS threads, $MS_PR_BYTES bytes"
    for r in $(seq 1 "$rounds"); do
        MS_PR_ROUND=$r
        for g in $MS_PR_ON; do
            ms_note "round $r/$rounds: $g"
            if [ "$g" = control ]; then ms_pr_control_pairs
            elif [ $((r % 2)) -eq 1 ]; then "ms_pr_${g}_ours"; "ms_pr_${g}_peer"
            else "ms_pr_${g}_peer"; "ms_pr_${g}_ours"; fi
        done
    done
    ms_pr_json >"$MS_PR_TMP/peers.json" || ms_die "$MS_EX_FAIL" "building the peer report failed"
    if [ -n "$json" ]; then
        ms_out_write "$json" cat -- "$MS_PR_TMP/peers.json" ||
            ms_die "$MS_EX_ENV" "cannot write ${MS_OUT_ERR:-$json}"
    fi
    ms_pr_text <"$MS_PR_TMP/peers.json"
    local n
    n=$(jq '[.rows[] | select(.ratio != null)] | length' "$MS_PR_TMP/peers.json")
    [ "$n" -gt 0 ] || ms_die "$MS_EX_FAIL" "no comparison could run (see 'not run' above)"
}

cmd_peers() {
    case "${1:-}" in
        -h|--help) ms_cmd_help ;;
        ""|-*) ms_peers_report "$@" ;;
        *) [[ "$1" =~ ^[a-z0-9_-]+$ ]] || ms_usage_error "invalid peer name '$1'"
           ms_peers_scripts "$@" ;;
    esac
}
