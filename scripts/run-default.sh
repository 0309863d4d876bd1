#!/usr/bin/env bash
# Summary: the short default suite behind `make run`.
# Usage: scripts/run-default.sh [RESULTS_DIR]
#
# Runs stream (auto size: each array >= 4x LLC), mbw (1 and all threads)
# and mencal (seqread, randread) with JSON output, keeps every document in
# RESULTS_DIR (default results/default-<UTC time>), and prints one
# summary: the environment that shaped the figures, then the figures.
# Designed to finish in about a minute on 2 cores.
#
# Sizes satisfy the 4x LLC rule on the machine it runs on: mbw 256 MiB and
# mencal 1 GiB (seqread) / 512 MiB (randread), each raised to 4x the LLC
# the tools detect (mencal --dry-run reports it), and clamped to half of
# MemAvailable with a warning.
#
# Exit: 0 when every step ran; 1 when any failed (after the summary of
# what did run).  MEMSUITE_BIN points the steps at other binaries.
set -euo pipefail
[ "${MEMSUITE_DEBUG:-0}" = 1 ] && set -x
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MEMSUITE_BIN:-$root/bin}
out=${1:-$root/results/default-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)   # absolute: the next-step lines name it

cpus=$(nproc)
failed=()
run_json() {    # run_json NAME CMD...: writes $out/NAME.json, reports ok/failed
    local name=$1; shift
    printf '  %-12s %s ... ' "$name" "${*#"$bin/"}"
    local t0=$SECONDS rc=0
    # --output (not -O): mbw keeps every short flag for mbw's own meaning
    "$@" --format json --output "$out/$name.json" > "$out/$name.stdout" 2> "$out/$name.stderr" || rc=$?
    if [ "$rc" -eq 0 ]; then
        printf 'ok (%ds)\n' $((SECONDS - t0))
    else
        printf 'FAILED (exit %d; see %s)\n' "$rc" "$out/$name.stderr"
        failed+=("$name")
    fi
}

# The LLC the tools detect (bytes, 0 when unknown) and MemAvailable.
llc=$("$bin/mencal" run seqread --dry-run 2>/dev/null | sed -n 's/^llc: \([0-9][0-9]*\) bytes.*/\1/p') || true
llc=${llc:-0}
avail_kib=$(awk '/^MemAvailable:/ {print $2}' "${MEMSUITE_PROCFS:-/proc}/meminfo" 2>/dev/null) || true
avail=$(( ${avail_kib:-0} * 1024 ))

# rule_size WHAT BASE_BYTES COPIES: BASE raised to 4x LLC; COPIES of it
# clamped to half of MemAvailable (whole MiB), with a warning.
rule_size() {
    local what=$1 size=$2 copies=$3 cap
    [ $((4 * llc)) -gt "$size" ] && size=$((4 * llc))
    if [ "$avail" -gt 0 ]; then
        cap=$(( avail / 2 / copies / 1048576 * 1048576 ))
        if [ "$size" -gt "$cap" ]; then
            echo "run-default: warning: $what: 4x the LLC needs $((size / 1048576)) MiB but half of MemAvailable allows $((cap / 1048576)) MiB; clamped (the tool labels it)" >&2
            size=$cap
        fi
    fi
    echo "$size"
}
mbw_mib=$(( $(rule_size mbw $((256 * 1048576)) 2) / 1048576 ))
seq_bytes=$(rule_size mencal-seq $((1024 * 1048576)) 1)
lat_bytes=$(rule_size mencal-lat $((512 * 1048576)) 1)

echo "memsuite: default suite -> $out"
run_json stream        "$bin/stream" --array-size auto --ntimes 20
run_json mbw-1thread   "$bin/mbw" -q -n 5 "$mbw_mib"
run_json mbw-threads   "$bin/mbw" -q -n 5 --threads "$cpus" "$mbw_mib"
run_json mencal-seq    "$bin/mencal" run seqread --reps 3 --size "$seq_bytes"
run_json mencal-lat    "$bin/mencal" run randread --reps 3 --size "$lat_bytes"
echo

rc=0
"$root/scripts/summary.sh" "$out" || rc=$?
# The next step: the tools from this checkout on PATH, this summary again,
# the environment's advice and the acceptance guide.
cat <<NEXT

Next:
  export PATH="$root/scripts:$bin:\$PATH"   # memsuite, stream, mbw, mencal from this checkout
  memsuite summary $out   # this summary again
  memsuite env                             # every fact that changes the figures, with fixes
  memsuite run --bench stream --sizes 4x,8x --threads 1,cores --out results/matrix
                                           # a size x thread matrix with a report (docs/acceptance.md)
NEXT
if [ ${#failed[@]} -gt 0 ]; then
    echo "memsuite: ${#failed[@]} step(s) failed: ${failed[*]} (see $out/<step>.stderr)" >&2
    exit 1
fi
exit "$rc"
