# shellcheck shell=bash
# cluster-node: what one node does in a cluster run.  It runs the real
# `memsuite check --ref REF` (its retries, its verdict), then writes one
# node report into the shared results directory, atomically (temp file in
# the same directory, then rename):
#
#   DIR/<node>.json  { "schema": "memsuite/cluster-node/1",
#     "node": "n017", "host": "n017.example", "run_id": "...",
#     "ref": { "id": "sha256:<hex of the canonical JSON>", "path": "...", "created": "..." },
#     "verdict": "PASS" | "FAIL" | "ERROR", "exit": 0,
#     "started": "UTC", "finished": "UTC", "seconds": 12,
#     "summary": "memsuite: PASS 4/4 metrics within tolerance on n017 (...)",
#     "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s",
#                    "value": 12000.5 | null, "expected": 12000, "pass": true } ],
#     "lines": [ "PASS  Triad.best_rate_mbps ..." ], "stderr_tail": [ "..." ] }
#
# The node name is the one Slurm knows it by (SLURMD_NODENAME under
# srun), else `hostname -s`; MEMSUITE_NODE_NAME overrides both.
# Values come from check's per-metric lines ("PASS  <record>.<metric>
# <value> <unit> ..."), one decimal, as check prints them
# (memsuite-analyse node-report, scripts/analysis/.../node_report.py).

ms_use cluster-hosts

# A name that is not a plain host name (ms_host_name_ok) is a usage error
# (exit 2): it names the report file and every line about the node.
ms_cluster_node_name() {
    local n="${MEMSUITE_NODE_NAME:-${SLURMD_NODENAME:-}}" from=MEMSUITE_NODE_NAME
    [ -n "${MEMSUITE_NODE_NAME:-}" ] || from=SLURMD_NODENAME
    [ -n "$n" ] || { n=$(hostname -s 2>/dev/null || uname -n); from="hostname -s"; }
    ms_host_name_ok "$n" ||
        ms_usage_error "$from: $(ms_shown "$n") is not a node name (letters, digits and ._- only, at most $MS_HOST_NAME_MAX characters)"
    printf '%s\n' "$n"
}

# The file name a node's report gets: the name with anything outside
# [A-Za-z0-9._-] replaced, and no leading dot.
ms_cluster_node_file() {
    local n="$1"
    n="${n//[^A-Za-z0-9._-]/_}"
    [ "${n#.}" != "$n" ] && n="_${n#.}"
    printf '%s.json\n' "$n"
}

# ms_cluster_ref_id FILE: "sha256:<hex>" of the reference's canonical JSON
# (key order and whitespace do not change it).
ms_cluster_ref_id() {
    local h
    h=$(jq -S -c . "$1" | sha256sum) || return 1
    printf 'sha256:%s\n' "${h%% *}"
}

# ms_cluster_node_run REF DIR RUN_ID RETRIES: prints one line saying where
# the report went; returns 0 when it was written (whatever the verdict),
# 3 when it could not be.
ms_cluster_node_run() {
    local ref="$1" dir="$2" run_id="$3" retries="$4"
    local node host out err started finished rc=0 verdict s0 file doc refid
    node=$(ms_cluster_node_name)
    host=$(ms_hostname)
    if [ ! -d "$dir" ] || [ ! -w "$dir" ]; then
        ms_die "$MS_EX_ENV" "node $node: the results directory $dir is missing or not writable here; it must be a shared directory every node mounts"
    fi
    refid=$(ms_cluster_ref_id "$ref") || ms_die "$MS_EX_USAGE" "node $node: cannot read the reference $ref"
    out=$(ms_mktemp)
    err=$(ms_mktemp)
    started=$(ms_now_utc)
    s0=$SECONDS
    "$MS_SCRIPTS_DIR/memsuite" check --ref "$ref" --retries "$retries" >"$out" 2>"$err" </dev/null || rc=$?
    finished=$(ms_now_utc)
    file="$dir/$(ms_cluster_node_file "$node")"
    # The document (verdict, summary, per-metric values from check's
    # lines) is the analyser's (node_report.py); it goes in place atomically.
    local -a a=(--ref "$ref" --ref-id "$refid" --node "$node" --host "$host" --run-id "$run_id"
        --exit "$rc" --started "$started" --finished "$finished" --seconds "$((SECONDS - s0))"
        --stdout "$out" --stderr "$err")
    doc=$(ms_mktemp)
    ms_analyse node-report "${a[@]}" >"$doc" ||
        ms_die "$MS_EX_ENV" "node $node: cannot make the report (the analyser failed)"
    verdict=$(jq -r .verdict "$doc")
    ms_out_write "$file" cat -- "$doc" ||
        ms_die "$MS_EX_ENV" "node $node: cannot write the report $MS_OUT_ERR (full or read-only shared directory?)"
    printf 'memsuite: cluster: node %s: %s (report %s)\n' "$node" "$verdict" "$file"
    return 0
}
