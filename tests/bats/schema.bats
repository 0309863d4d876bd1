#!/usr/bin/env bats
# docs/result.schema.json (memsuite/result/2) against real documents
# written by common/report.c (through the unit-test driver
# build/tests/test_report --emit-json*), and against broken documents that
# it must reject; docs/result-v1.schema.json against version 1 documents.

load test_helper

local_setup() {
    DRIVER=""
    for d in "${MEMSUITE_BUILD:+$MEMSUITE_BUILD/tests/test_report}" \
             "$BIN/../tests/test_report" "$ROOT/build/tests/test_report"; do
        if [ -n "$d" ] && [ -x "$d" ]; then DRIVER=$d; break; fi
    done
    [ -n "$DRIVER" ] || skip "test_report driver not built (make build/tests/test_report)"
}

# must_fail_schema FILE: valid JSON that the schema rejects.
must_fail_schema() {
    jq -e . "$1" >/dev/null
    run /usr/bin/jsonschema -i "$1" "$SCHEMA"
    [ "$status" -ne 0 ]
}

# mutate FILTER: fixture document changed by a jq filter, into bad.json.
mutate() {
    "$DRIVER" --emit-json-fixture good.json
    jq "$1" good.json > bad.json
}

@test "schema files are valid draft-07 schemas, version 2 and version 1" {
    run python3 -c 'import json, sys, jsonschema
for path, version in ((sys.argv[1], "2"), (sys.argv[2], "1")):
    s = json.load(open(path))
    jsonschema.Draft7Validator.check_schema(s)
    assert s["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert s["additionalProperties"] is False
    assert s["$id"] == "urn:memsuite:result:" + version, s["$id"]
    assert s["properties"]["schema"]["const"] == "memsuite/result/" + version' "$SCHEMA" "$SCHEMA_V1"
    assert_success
}

@test "full document from real collection validates" {
    run "$DRIVER" --emit-json full.json
    assert_success
    validate_json full.json
    run jq -r '.schema, .version, (.sysinfo | has("kernel")), (.threads.cpus | length > 0)' full.json
    assert_output "$(printf 'memsuite/result/2\n0.1.0\ntrue\ntrue')"
}

@test "full document validates on a bare fixture machine (facts unavailable)" {
    use_fixture llc-nocache
    run "$DRIVER" --emit-json full.json
    assert_success
    validate_json full.json
    # some facts are missing there, and every missing one says why
    run jq -r '.sysinfo as $s | [$s | to_entries[] | select(.value == null) | .key]
               | "\(length) \([.[] | select(($s[. + "_unavailable"] // "") == "")] | length)"' full.json
    assert_success
    [[ "$output" =~ ^[1-9][0-9]*\ 0$ ]]
}

@test "fixture with hostile strings and non-finite values validates and round-trips" {
    run "$DRIVER" --emit-json-fixture fx.json
    assert_success
    validate_json fx.json
    run jq -j '.records[1].name' fx.json
    assert_output "$(printf 'we,ird "name"\n\001')"
    run jq -c '.records[0].metrics.avg_time_s' fx.json
    assert_output '{"value":null,"value_unavailable":"non-finite value (inf)","unit":"s","base_unit":"s","scale":1,"better":"lower"}'
}

@test "partial document (optional parts absent or unavailable) validates" {
    run "$DRIVER" --emit-json-partial partial.json
    assert_success
    validate_json partial.json
    run jq -c '[has("validation"), has("threads"), .complete, .numa.placement]' partial.json
    assert_output '[false,false,false,null]'
}

@test "minimal document validates" {
    run "$DRIVER" --emit-json-minimal min.json
    assert_success
    validate_json min.json
}

@test "result file is written atomically: no temp file left behind" {
    mkdir out
    run "$DRIVER" --emit-json-minimal out/r.json
    assert_success
    run ls -A out
    assert_output "r.json"
}

@test "unwritable result path fails with the path, the reason and a hint" {
    run "$DRIVER" --emit-json-minimal "$SANDBOX/missing/dir/r.json"
    assert_failure 3
    assert_output --partial "$SANDBOX/missing/dir/r.json"
    assert_output --partial "No such file or directory"
    assert_output --partial "writable"
}

@test "rejected: missing schema key" {
    mutate 'del(.schema)'
    must_fail_schema bad.json
}

@test "rejected: wrong schema version" {
    mutate '.schema = "memsuite/result/3"'
    must_fail_schema bad.json
    mutate '.schema = "memsuite/result/1"'
    must_fail_schema bad.json
}

@test "version 2: every metric states base_unit and scale; the headline names a metric" {
    "$DRIVER" --emit-json-fixture fx.json
    run jq -c '[.records[] | .headline], (.records[0].metrics.best_rate_mbps | del(.stats, .samples))' fx.json
    assert_line --index 0 '["best_rate_mbps","latency_ns"]'
    assert_line --index 1 '{"value":12345.5,"unit":"MB/s","base_unit":"B/s","scale":1000000,"better":"higher"}'
    run result_v2_problems fx.json
    assert_success
    assert_output ""
    # what the schema cannot say, the tests' own check does
    jq '.records[0].headline = "latency_ns"' fx.json >bad.json
    run result_v2_problems bad.json
    assert_output "Copy: headline latency_ns is none of its metrics"
    run validate_json bad.json
    assert_failure
}

@test "rejected: a metric without base_unit or scale, a scale of 0, a better outside higher|lower" {
    mutate 'del(.records[0].metrics.best_rate_mbps.base_unit)'
    must_fail_schema bad.json
    mutate 'del(.records[0].metrics.best_rate_mbps.scale)'
    must_fail_schema bad.json
    mutate '.records[0].metrics.best_rate_mbps.scale = 0'
    must_fail_schema bad.json
    mutate '.records[0].metrics.best_rate_mbps.scale = "1e6"'
    must_fail_schema bad.json
    mutate '.records[0].metrics.best_rate_mbps.better = "up"'
    must_fail_schema bad.json
}

@test "rejected: a headline that is no metric name (a number, empty, a blank)" {
    mutate '.records[0].headline = 1'
    must_fail_schema bad.json
    mutate '.records[0].headline = ""'
    must_fail_schema bad.json
    mutate '.records[0].headline = "best rate"'
    must_fail_schema bad.json
}

@test "accepted: a record without a headline (none is natural, or it was never measured)" {
    mutate 'del(.records[].headline)'
    validate_json bad.json
}

# A version 1 document: what memsuite wrote before version 2 (this one is
# the fixture less the version 2 members).
@test "version 1: an old document validates against result-v1.schema.json, not against version 2" {
    mutate '.schema = "memsuite/result/1" | del(.records[].headline)
            | .records[].metrics[] |= del(.base_unit, .scale, .better)'
    /usr/bin/jsonschema -i bad.json "$SCHEMA_V1"
    must_fail_schema bad.json
    # the version 1 schema knows none of the new members
    mutate '.schema = "memsuite/result/1"'
    run /usr/bin/jsonschema -i bad.json "$SCHEMA_V1"
    assert_failure
}

@test "rejected: label outside standard|tuned|not-standard" {
    mutate '.label = "fast"'
    must_fail_schema bad.json
}

@test "rejected: not-standard without a reason" {
    mutate '.label_reasons = []'
    must_fail_schema bad.json
}

@test "rejected: standard with reasons" {
    mutate '.label = "standard"'
    must_fail_schema bad.json
}

@test "rejected: unknown top-level key" {
    mutate '.surprise = 1'
    must_fail_schema bad.json
}

@test "rejected: missing records" {
    mutate 'del(.records)'
    must_fail_schema bad.json
}

@test "rejected: metric value as a string" {
    mutate '.records[0].metrics.best_rate_mbps.value = "12345"'
    must_fail_schema bad.json
}

@test "rejected: null metric value without a reason" {
    mutate 'del(.records[1].metrics.latency_ns.value_unavailable)'
    must_fail_schema bad.json
}

@test "rejected: metric without a unit" {
    mutate 'del(.records[0].metrics.best_rate_mbps.unit)'
    must_fail_schema bad.json
}

@test "rejected: sysinfo fact as an object, or null without a reason" {
    "$DRIVER" --emit-json good.json
    jq '.sysinfo.kernel = {"a": 1}' good.json > bad.json
    must_fail_schema bad.json
    jq '.sysinfo.kernel = null | del(.sysinfo.kernel_unavailable)' good.json > bad.json
    must_fail_schema bad.json
}

@test "rejected: missing sysinfo fact" {
    "$DRIVER" --emit-json good.json
    jq 'del(.sysinfo.governor, .sysinfo.governor_unavailable)' good.json > bad.json
    must_fail_schema bad.json
}

@test "rejected: bad llc source and negative page counts" {
    mutate '.llc.source = "guess"'
    must_fail_schema bad.json
    mutate '.numa.placement.pages_per_node["0"] = -1'
    must_fail_schema bad.json
}

@test "rejected: hardware counters unavailable without a reason" {
    mutate '.counters.hardware.available = false'
    must_fail_schema bad.json
}

@test "accepted: tools may add members to config, records and validation" {
    mutate '.config.extra = [1] | .records[0].tool_specific = {"x": 1} | .validation.details = "ok"'
    validate_json bad.json
}
