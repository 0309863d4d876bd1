#!/usr/bin/env bash
# Summary: print one human summary of a directory of memsuite result documents.
# Usage: scripts/summary.sh DIR
#
# The environment block comes from the first document's sysinfo; then one
# line per record with its headline figures (bandwidth and latency units),
# the run label, and every warning the tools raised.  Facts the tools could
# not read are shown as "unavailable: why", never dropped.
set -euo pipefail
dir=${1:?usage: summary.sh DIR}
shopt -s nullglob
docs=("$dir"/*.json)
[ ${#docs[@]} -gt 0 ] || { echo "summary: no result documents in $dir" >&2; exit 1; }

jq -r '
  def fact($k): if .[$k] == null then "unavailable: \(.[$k + "_unavailable"] // "not recorded")" else (.[$k] | tostring) end;
  .sysinfo as $s |
  "Environment (\($s.hostname), \($s.utc_time))",
  "  CPU        \($s | fact("cpu_model")); \($s.sockets) socket(s), \($s.cores) cores, \($s.cpus_online) CPUs online",
  "  SMT        \($s | fact("smt"))",
  "  governor   \($s | fact("governor"))",
  "  THP        enabled=\($s | fact("thp_enabled")) defrag=\($s | fact("thp_defrag"))",
  "  NUMA       \($s | fact("numa_nodes")) node(s), numa_balancing=\($s | fact("numa_balancing"))",
  "  memory     \(($s.mem_total_bytes // 0) / 1073741824 * 10 | floor / 10) GiB, swappiness=\($s | fact("swappiness")), DIMMs: \($s | fact("dimms"))",
  "  LLC        \($s | fact("llc"))",
  "  allocator  \($s | fact("allocator")); GLIBC_TUNABLES=\($s | fact("glibc_tunables"))",
  "  build      \(.build)"
' "${docs[0]}"
echo
printf '%-14s %-10s %-32s %14s  %s\n' tool record metric value unit
for f in "${docs[@]}"; do
    jq -r --arg file "$(basename "$f" .json)" '
      .records[] as $r |
      ($r.metrics | to_entries[]
        | select(.key | test("^(best_rate_mbps|avg_rate_mibps|bandwidth|latency|read_bandwidth|write_bandwidth|total_bandwidth|total)$"))) as $m |
      [$file, $r.name, $m.key,
       (if $m.value.value == null then "unavailable" else ($m.value.value * 100 | round / 100 | tostring) end),
       $m.value.unit] | @tsv' "$f" |
    while IFS=$'\t' read -r tool rec metric value unit; do
        printf '%-14s %-10s %-32s %14s  %s\n' "$tool" "$rec" "$metric" "$value" "$unit"
    done
done
echo
for f in "${docs[@]}"; do
    jq -r --arg file "$(basename "$f" .json)" '
      "\($file): \(.label)" + (if (.label_reasons | length) > 0 then " (" + (.label_reasons | join("; ")) + ")" else "" end)
      + (if .validation then (if .validation.passed then ", validated" else ", VALIDATION FAILED" end) else "" end),
      (.warnings[]? | "  warning: \(.)")' "$f"
done
