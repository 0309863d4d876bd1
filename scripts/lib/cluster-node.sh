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
# <value> <unit> ..."), one decimal, as check prints them.

ms_use cluster-hosts

MS_CLUSTER_NODE_SCHEMA="memsuite/cluster-node/1"

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
    local node host out err started finished rc=0 verdict summary s0 file tmp refid
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
    case "$rc" in
        0) verdict=PASS ;;
        1) verdict=FAIL ;;
        *) verdict=ERROR ;;
    esac
    summary=$(grep -E '^memsuite: (PASS|FAIL|ERROR) ' "$out" | tail -n 1 || true)
    if [ -z "$summary" ]; then
        summary=$(grep -v '^memsuite: check: running:' "$err" | tail -n 1 || true)
        summary="memsuite check exited $rc${summary:+: $summary}"
    fi

    # check's metric lines -> "record.metric<TAB>value" (NA when not a number)
    local vals
    vals=$(ms_mktemp)
    awk '$1 == "PASS" || $1 == "FAIL" {
            if (NF >= 2 && $2 ~ /\./) print $2 "\t" (($3 ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) ? $3 : "NA")
         }' "$out" >"$vals"

    file="$dir/$(ms_cluster_node_file "$node")"
    tmp=$(ms_mktemp)     # put in place by ms_out_write below
    if ! ms_ref_metrics "$ref" | jq -R -s -c \
        --arg schema "$MS_CLUSTER_NODE_SCHEMA" --arg node "$node" --arg host "$host" \
        --arg run_id "$run_id" --arg refid "$refid" --arg refpath "$ref" \
        --arg created "$(jq -r '.created // ""' "$ref")" --arg verdict "$verdict" \
        --argjson exit "$rc" --arg started "$started" --arg finished "$finished" \
        --argjson seconds "$((SECONDS - s0))" --arg summary "$summary" \
        --rawfile vals "$vals" --rawfile lines "$out" --rawfile errs "$err" '
        def rows(s): s | split("\n") | map(select(length > 0));
        (rows($vals) | map(split("\t") | {key: .[0], value: .[1]}) | from_entries) as $v
        | { schema: $schema, node: $node, host: $host, run_id: $run_id,
            ref: { id: $refid, path: $refpath, created: $created },
            verdict: $verdict, exit: $exit, started: $started, finished: $finished,
            seconds: $seconds, summary: $summary,
            metrics: [ rows(.)[] | split("\t")
                       | (.[0] + "." + .[1]) as $name
                       | ($v[$name] // "NA") as $raw
                       | { record: .[0], metric: .[1], unit: .[2], expected: (.[3] | tonumber),
                           value: (if $raw == "NA" then null else ($raw | tonumber) end),
                           pass: (($raw != "NA") and ($verdict != "ERROR")
                                  and ((rows($lines) | map(select(startswith("PASS  " + $name + " "))) | length) > 0)) } ],
            lines: rows($lines), stderr_tail: (rows($errs) | .[-5:]) }' >"$tmp" 2>/dev/null; then
        rm -f -- "$tmp"
        ms_die "$MS_EX_ENV" "node $node: cannot make the report (jq failed)"
    fi
    ms_out_write "$file" cat -- "$tmp" ||
        { rm -f -- "$tmp"; ms_die "$MS_EX_ENV" "node $node: cannot write the report $MS_OUT_ERR (full or read-only shared directory?)"; }
    printf 'memsuite: cluster: node %s: %s (report %s)\n' "$node" "$verdict" "$file"
    return 0
}
