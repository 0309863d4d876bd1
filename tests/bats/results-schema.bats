#!/usr/bin/env bats
# The readers of result documents accept both schema versions: bash
# (scripts/lib/results.sh: ms_res_state, which asks the analyser) and the
# analyser (memsuite_analysis/results.py) read memsuite/result/1 and /2
# alike and agree on each document's state and headline.  Fixtures:
# tests/fixtures/results/loaded-v1.json (version 1: no headline, the
# reader chooses bandwidth_max, the first rate) and loaded-v2.json (the
# same figures in version 2, naming latency_max_load as its headline).

load test_helper

R="$FIXTURES/results"

# bash_lib CMD...: runs CMD with the orchestrator's result functions loaded.
bash_lib() {
    run bash -c 'MS_LIB="$0/scripts/lib"; . "$0/scripts/lib/common.sh"; . "$0/scripts/lib/results.sh"; "$@"' "$ROOT" "$@"
}

# py_read FILE: "state<TAB>why<TAB>headline of each record" as the analyser reads FILE.
py_read() {
    run env PYTHONPATH="$ROOT/scripts/analysis" /usr/bin/python3 -c '
import sys
from memsuite_analysis.results import read_result
r = read_result(sys.argv[1])
print("%s\t%s\t%s" % (r.state, r.why, ",".join(x.headline or "-" for x in r.records)))' "$1"
}

# primary FILE: "record metric" of each record's headline, as the
# analyser (the one reader; bash asks it through ms_res_state) reads FILE.
primary() {
    run env PYTHONPATH="$ROOT/scripts/analysis" /usr/bin/python3 -c '
import sys
from memsuite_analysis.results import read_result
for x in read_result(sys.argv[1]).records:
    if x.headline:
        print(x.name, x.headline)' "$1"
    assert_success
    printf '%s\n' "$output"
}

@test "the fixtures validate: version 1 against result-v1.schema.json, version 2 against result.schema.json" {
    /usr/bin/jsonschema -i "$R/loaded-v1.json" "$SCHEMA_V1"
    validate_json "$R/loaded-v2.json"
    # and not the other way round
    run /usr/bin/jsonschema -i "$R/loaded-v1.json" "$SCHEMA"
    assert_failure
    run /usr/bin/jsonschema -i "$R/loaded-v2.json" "$SCHEMA_V1"
    assert_failure
}

@test "ms_res_state: a version 1 and a version 2 document are both complete" {
    bash_lib ms_res_state "$R/loaded-v1.json" mencal loaded
    assert_output complete
    bash_lib ms_res_state "$R/loaded-v2.json" mencal loaded
    assert_output complete
}

@test "ms_res_state: another version is no result document, and the message names both accepted" {
    jq '.schema = "memsuite/result/3"' "$R/loaded-v2.json" >v3.json
    bash_lib ms_res_state v3.json
    assert_output "v3.json has schema memsuite/result/3, expected memsuite/result/1 or memsuite/result/2"
    py_read v3.json
    assert_output "$(printf 'unreadable\tv3.json has schema memsuite/result/3, expected memsuite/result/1 or memsuite/result/2\t')"
}

@test "headline: version 2 uses the record's own (latency_max_load), version 1 the reader's rule (bandwidth_max)" {
    run primary "$R/loaded-v2.json"
    assert_output "loaded latency_max_load"
    run primary "$R/loaded-v1.json"
    assert_output "loaded bandwidth_max"
}

@test "bash and the analyser agree on state and headline, version 1 and version 2" {
    py_read "$R/loaded-v2.json"
    assert_output "$(printf 'complete\t\tlatency_max_load')"
    py_read "$R/loaded-v1.json"
    assert_output "$(printf 'complete\t\tbandwidth_max')"
}

@test "a version 2 headline that names no metric makes the document invalid, in the same words for both" {
    jq '.records[0].headline = "latency_p99"' "$R/loaded-v2.json" >bad.json
    bash_lib ms_res_state bad.json
    assert_output 'invalid: loaded.headline names "latency_p99", which the record does not have'
    py_read bad.json
    assert_output "$(printf 'invalid\tloaded.headline names "latency_p99", which the record does not have\t')"
}

@test "a version 2 headline is what the value check looks at: a 0 headline is invalid, a 0 elsewhere is not" {
    jq '.records[0].headline = "bandwidth_max_delay"' "$R/loaded-v2.json" >zero.json
    bash_lib ms_res_state zero.json
    assert_output --regexp '^invalid: loaded\.bandwidth_max_delay is 0, not a measured value '
    py_read zero.json
    assert_output --regexp "^invalid"$'\t''loaded\.bandwidth_max_delay is 0, not a measured value '
    # the same document naming latency_max_load is sound: the 0 is no headline
    bash_lib ms_res_state "$R/loaded-v2.json"
    assert_output complete
}

@test "a version 1 document's headline key means nothing: readers keep the version 1 rule" {
    jq '.records[0].headline = "latency_p99"' "$R/loaded-v1.json" >v1h.json
    bash_lib ms_res_state v1h.json
    assert_output complete
    run primary v1h.json
    assert_output "loaded bandwidth_max"
    py_read v1h.json
    assert_output "$(printf 'complete\t\tbandwidth_max')"
}
